import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchTotp, newTotpSecret, provisioningUrl, totpCode, totpStep } from './totp.ts';

// RFC 6238 appendix B's SHA-1 key, base32.
const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

test('codes follow RFC 6238 (SHA-1, 30 s, last six digits of the vectors)', () => {
  const vectors: Array<[number, string]> = [
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ];
  for (const [seconds, code] of vectors) {
    assert.equal(totpCode(rfcSecret, seconds * 1000), code);
    assert.equal(matchTotp(rfcSecret, code, seconds * 1000), totpStep(seconds * 1000));
  }
});

test('a code matches in its own step and one step either side, never further, and names its step', () => {
  const now = 1_800_000_000_000;
  const step = totpStep(now);
  for (const offset of [-1, 0, 1]) assert.equal(matchTotp(rfcSecret, totpCode(rfcSecret, now + offset * 30_000), now), step + offset);
  for (const offset of [-2, 2]) assert.equal(matchTotp(rfcSecret, totpCode(rfcSecret, now + offset * 30_000), now), undefined);
  assert.equal(matchTotp(rfcSecret, 'abcdef', now), undefined);
  assert.equal(matchTotp(rfcSecret, '', now), undefined);
  assert.equal(matchTotp(rfcSecret, '1234567', now), undefined);
});

test('secrets are 16 base32 characters (80 random bits) and URLs are what authenticator apps read', () => {
  const secrets = new Set(Array.from({ length: 50 }, () => newTotpSecret()));
  assert.equal(secrets.size, 50);
  for (const secret of secrets) assert.match(secret, /^[A-Z2-7]{16}$/);
  assert.equal(provisioningUrl('edgeward.local', 'a b@c', 'ABC'), 'otpauth://totp/edgeward.local:a%20b%40c?secret=ABC&issuer=edgeward.local');
});
