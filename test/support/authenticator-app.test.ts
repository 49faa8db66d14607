// The test's own TOTP generator against the RFC 6238 appendix B vectors (SHA-1, 8 digits), and URL parsing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base32Decode, hotp, parseProvisioningUrl } from './authenticator-app.ts';

test('RFC 6238 test vectors (SHA-1)', () => {
  const key = Buffer.from('12345678901234567890', 'ascii');
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, expected] of vectors) assert.equal(hotp(key, Math.floor(seconds / 30), 8), expected, `T=${seconds}`);
  // Six digits are the last six of the same truncation.
  assert.equal(hotp(key, Math.floor(59 / 30), 6), '287082');
});

test('RFC 4226 HOTP vectors and base32', () => {
  const key = Buffer.from('12345678901234567890', 'ascii');
  assert.deepEqual([0, 1, 2, 9].map((counter) => hotp(key, counter)), ['755224', '287082', '359152', '520489']);
  assert.equal(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ').toString('ascii'), '12345678901234567890');
});

test('provisioning URLs are read as authenticator apps read them', () => {
  assert.deepEqual(parseProvisioningUrl('otpauth://totp/edgeward.local:alice%40example?secret=JBSWY3DPEHPK3PXP&issuer=edgeward.local'), {
    issuer: 'edgeward.local',
    account: 'alice@example',
    secret: 'JBSWY3DPEHPK3PXP',
  });
  assert.throws(() => parseProvisioningUrl('otpauth://hotp/x?secret=A'), /not an otpauth totp URL/);
  assert.throws(() => parseProvisioningUrl('otpauth://totp/x:y?issuer=x'), /no secret/);
});
