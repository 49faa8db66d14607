import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { MfaKeyMismatch, SecretBox } from './secret-box.ts';

test('a sealed value opens with the same key for the same identity only', () => {
  const box = new SecretBox(randomBytes(32));
  const sealed = box.seal('JBSWY3DPEHPK3PXP', 'identity-1');
  assert.ok(!JSON.stringify(sealed).includes('JBSWY3DPEHPK3PXP'));
  assert.equal(box.open(sealed, 'identity-1'), 'JBSWY3DPEHPK3PXP');
  assert.throws(() => box.open(sealed, 'identity-2'), MfaKeyMismatch, 'bound to its identity');
  assert.throws(() => box.open({ ...sealed, data: Buffer.from('tampered!').toString('base64') }, 'identity-1'), MfaKeyMismatch);
  const other = new SecretBox(randomBytes(32));
  assert.throws(() => other.open(sealed, 'identity-1'), /edge\.totp\.secretKeyFile/);
  assert.notEqual(box.seal('x', 'i').iv, box.seal('x', 'i').iv, 'a fresh IV every time');
  assert.throws(() => new SecretBox(randomBytes(16)), /32 bytes/);
});
