import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { readEnrollmentClaims } from './enrollment-token.ts';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const now = Date.UTC(2026, 0, 1);

function jwt(claims: Record<string, unknown>, expSeconds = now / 1000 + 600): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).setIssuer('https://ctrl.example.com:1280').setSubject('router-1').setJti('token-1').setExpirationTime(expSeconds).sign(privateKey);
}

describe('edge router enrollment token', () => {
  it('reads where to enroll, as whom, with which token, and the cluster control addresses', async () => {
    const result = readEnrollmentClaims(await jwt({ em: 'erott', ctrls: ['https://ctrl.example.com:1280'], ctrlAddresses: ['tls:ctrl.example.com:6262', 'tls:ctrl2.example.com:6262'] }), now);
    assert.deepEqual(result, {
      ok: true,
      claims: {
        issuer: 'https://ctrl.example.com:1280',
        routerId: 'router-1',
        token: 'token-1',
        expiresAt: now / 1000 + 600,
        controllers: ['https://ctrl.example.com:1280'],
        ctrlAddresses: ['tls:ctrl.example.com:6262', 'tls:ctrl2.example.com:6262'],
      },
    });
  });

  it('refuses an identity (ott) token: the router needs an edge router token', async () => {
    const result = readEnrollmentClaims(await jwt({ em: 'ott' }), now);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.message : '', /for "ott" enrollment, not an edge router \(em must be "erott"\)/);
  });

  it('refuses an expired token and says when it expired', async () => {
    const result = readEnrollmentClaims(await jwt({ em: 'erott' }, now / 1000 - 1), now);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.message : '', /the enrollment token expired at 2025-12-31T23:59:59.000Z/);
  });

  it('refuses text that is not a JWT', () => {
    const result = readEnrollmentClaims('not a jwt', now);
    assert.match(!result.ok ? result.message : '', /not a JWT/);
  });
});
