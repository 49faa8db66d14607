import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyAgainstNothing, verifyPassword } from './password-hasher.ts';

test('a password verifies against its own hash and no other', async () => {
  const stored = await hashPassword('correct horse battery');
  assert.equal(stored.algorithm, 'scrypt');
  assert.equal(Buffer.from(stored.salt, 'base64').length, 16);
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse batterz', stored), false);
  assert.equal(await verifyPassword('', stored), false);
});

test('the same password hashes differently each time (per-user salt)', async () => {
  const a = await hashPassword('same-password');
  const b = await hashPassword('same-password');
  assert.notEqual(a.hash, b.hash);
  assert.notEqual(a.salt, b.salt);
});

test('verification against nothing costs about as much as a real verification', async () => {
  const stored = await hashPassword('timing-password');
  const time = async (work: () => Promise<unknown>) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 5; i++) await work();
    return Number(process.hrtime.bigint() - start) / 5e6;
  };
  const real = await time(() => verifyPassword('wrong', stored));
  const fake = await time(() => verifyAgainstNothing('wrong'));
  assert.ok(fake > real * 0.5 && fake < real * 2, `real ${real.toFixed(1)}ms vs unknown-user ${fake.toFixed(1)}ms`);
});
