import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { readIdentityEnrollmentClaims } from './enrollment-token.ts';

const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const now = Date.parse('2026-11-29T10:00:00Z');

function token(claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ iss: 'https://ctrl.example:1280', sub: 'id-1', jti: 'tok', em: 'ott', exp: now / 1000 + 600, ...claims }).setProtectedHeader({ alg: 'ES256', ...header }).sign(key);
}

test('an identity token gives its controller, identity, one-time token, method, username and kid', async () => {
  const read = readIdentityEnrollmentClaims(await token({ em: 'updb', username: 'alice' }, { kid: 'abc' }), now);
  assert.deepEqual(read, { ok: true, claims: { issuer: 'https://ctrl.example:1280', identityId: 'id-1', token: 'tok', method: 'updb', expiresAtMs: now + 600_000, username: 'alice', keyId: 'abc' } });
});

test('expired, router, unknown-method, path-bearing or incomplete tokens say what is wrong', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ exp: now / 1000 - 1 }, /expired at 2026-11-29T09:59:59\.000Z/],
    [{ em: 'erott' }, /edgeward router enroll/],
    [{ em: 'ca' }, /'ca' is not one an identity enrolls with/],
    [{ em: undefined }, /no enrollment method/],
    [{ iss: 'https://ctrl.example:1280/edge/client/v1' }, /issuer \(iss\) is not a controller's https:\/\/host:port/],
    [{ iss: 'http://ctrl.example:1280' }, /issuer/],
    [{ sub: '' }, /names no identity/],
    [{ jti: undefined }, /one-time token/],
    [{ exp: undefined }, /no expiry/],
  ];
  for (const [claims, message] of cases) {
    const read = readIdentityEnrollmentClaims(await token(claims), now);
    assert.equal(read.ok, false, JSON.stringify(claims));
    assert.match((read as { message: string }).message, message);
  }
  assert.match((readIdentityEnrollmentClaims('garbage', now) as { message: string }).message, /not an enrollment JWT/);
});
