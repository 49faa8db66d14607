// The external JWT as a secondary factor, against a real controller process over HTTPS: an auth policy with
// `secondary.requireExtJwtSigner` leaves a password login partially authenticated until a JWT from that signer,
// naming the same identity, comes with the session, and from then on every request must carry one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { JWTPayload } from 'jose';
import { makeSigningKey, signToken, type TestSigningKey } from '../server/auth/ext-jwt/test-signing-keys.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import type { HttpResponse } from './support/https-client.ts';
import { assertExtJwtChallenge, authPolicyBody, EdgeAdmin, requestWithRepeatedHeaders, type ChallengeError } from './support/ext-jwt-support.ts';

const corp = { issuer: 'https://corp.idp.test', audience: 'edgeward-corp', externalAuthUrl: 'https://corp.idp.test/authorize', clientId: 'edgeward-client', scopes: ['openid', 'email'] };
const other = { issuer: 'https://other.idp.test', audience: 'edgeward-other' };
const davePassword = 'dave-password-1';

let controller: ControllerFixture;
let admin: EdgeAdmin;
let corpKey: TestSigningKey;
let otherKey: TestSigningKey;
let corpSigner: string;
let policyId: string;
let dave: string;
let erin: string;
/** Dave's password session, partially authenticated until the JWT test passes. */
let daveSession: string;

before(async () => {
  [corpKey, otherKey] = await Promise.all([makeSigningKey('rsa', 'corp-1'), makeSigningKey('ec', 'other-1')]);
  controller = await ControllerFixture.create();
  admin = new EdgeAdmin(controller, await controller.adminToken());
  corpSigner = await admin.createSigner({ name: 'corp', enabled: true, certPem: corpKey.certPem, kid: corpKey.kid, ...corp });
  await admin.createSigner({ name: 'other', enabled: true, certPem: otherKey.certPem, ...other });
  erin = await admin.createIdentity('erin', { password: 'erin-password-1' });
});

after(async () => {
  await controller?.dispose();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

function corpToken(sub: string, extra: JWTPayload = {}): Promise<string> {
  return signToken(corpKey, { iss: corp.issuer, aud: corp.audience, sub, iat: nowSeconds(), exp: nowSeconds() + 600, ...extra });
}

function get(path: string, session: string, bearer?: string): Promise<HttpResponse> {
  return controller.http.get(`${controller.clientApi}${path}`, { headers: { 'zt-session': session, ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) } });
}

function assertSecondaryChallenge(response: HttpResponse, error: ChallengeError): void {
  assertExtJwtChallenge(response.headers['www-authenticate'], 'openziti-secondary-ext-jwt', error, [[corpSigner, corp.issuer]]);
}

async function assertRefused(response: HttpResponse, error: ChallengeError): Promise<void> {
  assert.equal(response.status, 401, response.text);
  assert.equal(response.json.error.code, 'UNAUTHORIZED');
  assert.equal(response.json.data, undefined);
  assertSecondaryChallenge(response, error);
}

test('an auth policy with the full shape requires a signer as secondary factor', async () => {
  const unknown = await admin.request('POST', '/auth-policies', authPolicyBody('dangling', { requireExtJwtSigner: 'no-such-signer' }));
  assert.equal(unknown.status, 400, unknown.text);
  assert.equal(unknown.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(unknown.json.error.cause.field, 'secondary.requireExtJwtSigner');

  policyId = await admin.createPolicy('requires-corp-jwt', { requireExtJwtSigner: corpSigner });
  const policy = await admin.detail(`/auth-policies/${policyId}`);
  assert.equal(policy.name, 'requires-corp-jwt');
  assert.deepEqual(policy.secondary, { requireTotp: false, requireExtJwtSigner: corpSigner });
  assert.deepEqual(policy.primary.extJwt, { allowed: true, allowedSigners: [] });
  assert.equal(policy.primary.updb.allowed, true);
  dave = await admin.createIdentity('dave', { authPolicyId: policyId, password: davePassword });
});

test('a password login under that policy is partially authenticated with an EXT-JWT auth query and a challenge', async () => {
  const response = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'dave', password: davePassword } });
  assert.equal(response.status, 200, response.text);
  const session = response.json.data;
  daveSession = session.token;
  assert.equal(response.headers['zt-session'], daveSession);
  assert.equal(session.identityId, dave);
  assert.equal(session.isMfaRequired, false);
  assert.equal(session.authQueries.length, 1);
  const [query] = session.authQueries;
  assert.equal(query.typeId, 'EXT-JWT');
  assert.equal(query.provider, 'url');
  assert.equal(query.id, corpSigner);
  assert.equal(query.issuer, corp.issuer);
  assert.equal(query.httpUrl, corp.externalAuthUrl);
  assert.equal(query.clientId, corp.clientId);
  assert.deepEqual(query.scopes, corp.scopes);
  assertSecondaryChallenge(response, 'missing');

  // An identity under the default policy owes nothing: the query comes from the policy alone.
  const erinLogin = await controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username: 'erin', password: 'erin-password-1' } });
  assert.equal(erinLogin.status, 200, erinLogin.text);
  assert.deepEqual(erinLogin.json.data.authQueries, []);
  assert.equal(erinLogin.headers['www-authenticate'], undefined);
  assert.equal((await get('/current-identity', erinLogin.json.data.token)).status, 200);
});

test('while partial, current-api-session answers with the challenge and full routes refuse', async () => {
  const current = await get('/current-api-session', daveSession);
  assert.equal(current.status, 200, current.text);
  assert.equal(current.json.data.authQueries.length, 1);
  assert.equal(current.json.data.authQueries[0].typeId, 'EXT-JWT');
  assertSecondaryChallenge(current, 'missing');

  await assertRefused(await get('/current-identity', daveSession), 'missing');
  await assertRefused(await get('/current-identity', daveSession, await corpToken(erin)), 'invalid');
  await assertRefused(await get('/current-identity', daveSession, await corpToken(dave, { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 })), 'expired');
  const fromOther = await signToken(otherKey, { iss: other.issuer, aud: other.audience, sub: dave, iat: nowSeconds(), exp: nowSeconds() + 600 });
  await assertRefused(await get('/current-identity', daveSession, fromOther), 'invalid');
  await assertRefused(await get('/current-identity', daveSession, 'not-a-jwt'), 'missing');

  const still = await get('/current-api-session', daveSession);
  assert.equal(still.json.data.authQueries.length, 1, 'no wrong JWT answered the query');
});

test('a valid JWT from the signer naming the same identity completes the session', async () => {
  const jwt = await corpToken(dave);
  const me = await get('/current-identity', daveSession, jwt);
  assert.equal(me.status, 200, me.text);
  assert.equal(me.json.data.id, dave);
  assert.equal(me.headers['www-authenticate'], undefined);

  const withJwt = await get('/current-api-session', daveSession, jwt);
  assert.equal(withJwt.status, 200);
  assert.deepEqual(withJwt.json.data.authQueries, []);
  assert.equal(withJwt.headers['www-authenticate'], undefined);
  const withoutJwt = await get('/current-api-session', daveSession);
  assert.equal(withoutJwt.status, 200);
  assert.deepEqual(withoutJwt.json.data.authQueries, [], 'the query stays answered');
  assertSecondaryChallenge(withoutJwt, 'missing');
});

test('after that, every request on a full route must carry a valid JWT for the same identity from that signer', async () => {
  await assertRefused(await get('/current-identity', daveSession), 'missing');
  await assertRefused(await get('/current-identity', daveSession, await corpToken(dave, { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 })), 'expired');
  await assertRefused(await get('/current-identity', daveSession, await corpToken(erin)), 'invalid');
  const fromOther = await signToken(otherKey, { iss: other.issuer, aud: other.audience, sub: dave, iat: nowSeconds(), exp: nowSeconds() + 600 });
  await assertRefused(await get('/current-identity', daveSession, fromOther), 'invalid');
  await assertRefused(await get('/current-identity/authenticators', daveSession), 'missing');

  const again = await get('/current-identity', daveSession, await corpToken(dave));
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.data.id, dave);
  const authenticators = await get('/current-identity/authenticators', daveSession, await corpToken(dave));
  assert.equal(authenticators.status, 200, authenticators.text);
  // Every bearer token with the session counts as a secondary one, also from a repeated Authorization header.
  const repeated = await requestWithRepeatedHeaders(controller.caPem, 'GET', `${controller.clientApi}/current-identity`, {
    'zt-session': daveSession,
    authorization: [`Bearer ${await corpToken(erin)}`, `Bearer ${await corpToken(dave)}`],
  });
  assert.equal(repeated.status, 200, repeated.text);
  assert.equal(repeated.json.data.id, dave);
});

test('the required signer can not be deleted while the policy names it; once the policy lets go, it can', async () => {
  const refused = await admin.request('DELETE', `/external-jwt-signers/${corpSigner}`);
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.json.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  await admin.detail(`/external-jwt-signers/${corpSigner}`);

  await admin.ok('PATCH', `/auth-policies/${policyId}`, { secondary: { requireExtJwtSigner: null } });
  assert.equal((await admin.detail(`/auth-policies/${policyId}`)).secondary.requireExtJwtSigner, null);
  const free = await get('/current-identity', daveSession);
  assert.equal(free.status, 200, 'without the requirement the session needs no JWT');
  assert.equal(free.headers['www-authenticate'], undefined);
  await admin.ok('DELETE', `/external-jwt-signers/${corpSigner}`);
  assert.equal((await admin.request('GET', `/external-jwt-signers/${corpSigner}`)).status, 404);
});
