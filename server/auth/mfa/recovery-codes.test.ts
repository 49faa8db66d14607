import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { findRecoveryCode, hashRecoveryCode, newRecoveryCodes } from './recovery-codes.ts';

test('twenty distinct six-character base32 codes, matched by keyed hash, case-insensitively', () => {
  const key = randomBytes(32);
  const codes = newRecoveryCodes();
  assert.equal(codes.length, 20);
  assert.equal(new Set(codes).size, 20);
  for (const code of codes) assert.match(code, /^[A-Z2-7]{6}$/);
  const hashes = codes.map((code) => hashRecoveryCode(key, code));
  assert.equal(findRecoveryCode(key, codes[3]!, hashes), hashes[3]);
  assert.equal(findRecoveryCode(key, ` ${codes[3]!.toLowerCase()} `, hashes), hashes[3]);
  assert.equal(findRecoveryCode(key, 'AAAAAA', hashes.filter((hash) => hash !== hashRecoveryCode(key, 'AAAAAA'))), undefined);
  assert.equal(findRecoveryCode(randomBytes(32), codes[3]!, hashes), undefined, 'another key, another hash');
  assert.equal(findRecoveryCode(key, '12345', hashes), undefined);
});
