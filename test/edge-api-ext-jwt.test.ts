// External JWT signers and method=ext-jwt primary login, against a real controller process over HTTPS: signer
// CRUD, login with certificate keys (RS256, ES256) and with a JWKS endpoint the controller fetches over TLS, key
// rotation, and every refusal with its challenge, its log line, and no session left behind.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SignJWT, type JWTPayload } from 'jose';
import { startJwksServer, type JwksTestServer } from '../server/auth/ext-jwt/jwks-test-server.ts';
import { base64url, makeSigningKey, signToken, type TestSigningKey } from '../server/auth/ext-jwt/test-signing-keys.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import type { HttpResponse } from './support/https-client.ts';
import {
  assertExtJwtChallenge,
  EdgeAdmin,
  LogCursor,
  pkiWithServerCertificate,
  sleep,
  startRotatingJwksServer,
  requestWithRepeatedHeaders,
  type ChallengeError,
  type RotatingJwksServer,
} from './support/ext-jwt-support.ts';

const issuers = {
  rsa: 'https://rsa.idp.test',
  ec: 'https://ec.idp.test',
  externalId: 'https://external-id.idp.test',
  jwks: 'https://jwks.idp.test',
  untrusted: 'https://untrusted-tls.idp.test',
  disabled: 'https://disabled.idp.test',
} as const;

let pkiRoot: string;
let controller: ControllerFixture;
let admin: EdgeAdmin;
let jwks: RotatingJwksServer;
let untrustedJwks: JwksTestServer;
let keys: { rsa: TestSigningKey; ec: TestSigningKey; rsa2: TestSigningKey; jwks1: TestSigningKey; jwks2: TestSigningKey; forger: TestSigningKey; disabled: TestSigningKey };
const signer = { rsa: '', ec: '', externalId: '', jwks: '', untrusted: '', disabled: '' };
const identity = { alice: '', bob: '', noExtJwt: '', onlyJwks: '', disabled: '', admin: '' };
/** Every bearer token sent to the controller, to prove none reaches its log. */
const sentTokens: string[] = [];

before(async () => {
  pkiRoot = mkdtempSync(join(tmpdir(), 'ext-jwt-pki-'));
  const pkiDir = join(pkiRoot, 'pki');
  const tls = await pkiWithServerCertificate(pkiDir);
  const [rsa, ec, rsa2, jwks1, jwks2, forger, disabled] = await Promise.all([
    makeSigningKey('rsa', 'rsa-1'),
    makeSigningKey('ec', 'ec-1'),
    makeSigningKey('rsa', 'rsa-2'),
    makeSigningKey('ec', 'jwks-1'),
    makeSigningKey('rsa', 'jwks-2'),
    makeSigningKey('rsa', 'rsa-1'), // same kid as `rsa`, different key
    makeSigningKey('ec', 'disabled-1'),
  ]);
  keys = { rsa, ec, rsa2, jwks1, jwks2, forger, disabled };
  // The test's JWKS servers are on 127.0.0.1: this controller allows private JWKS addresses, as an operator with an
  // issuer on the private network would (the default refuses them: see the test of that below).
  controller = await ControllerFixture.create({ pkiDir, editConfig: allowPrivateJwksAddresses });
  jwks = await startRotatingJwksServer(tls, [jwks1.jwk]);
  untrustedJwks = await startJwksServer(); // its own throwaway CA, which the controller does not trust
  untrustedJwks.serveJson({ keys: [jwks1.jwk] });
  admin = new EdgeAdmin(controller, await controller.adminToken());

  const base = (name: string, issuer: string) => ({ name, issuer, audience: `${name}-audience`, enabled: true });
  signer.rsa = await admin.createSigner({ ...base('rsa', issuers.rsa), certPem: rsa.certPem, kid: rsa.kid });
  signer.ec = await admin.createSigner({ ...base('ec-email', issuers.ec), certPem: ec.certPem, claimsProperty: 'email' });
  signer.externalId = await admin.createSigner({ ...base('external-id', issuers.externalId), certPem: rsa2.certPem, useExternalId: true });
  signer.jwks = await admin.createSigner({ ...base('jwks', issuers.jwks), jwksEndpoint: jwks.url });
  signer.untrusted = await admin.createSigner({ ...base('untrusted-tls', issuers.untrusted), jwksEndpoint: untrustedJwks.url() });
  signer.disabled = await admin.createSigner({ ...base('disabled', issuers.disabled), enabled: false, certPem: disabled.certPem });

  const noExtJwt = await admin.createPolicy('no-ext-jwt', { extJwt: { allowed: false, allowedSigners: [] } });
  const onlyJwks = await admin.createPolicy('only-jwks-signer', { extJwt: { allowed: true, allowedSigners: [signer.jwks] } });
  identity.alice = await admin.createIdentity('alice');
  identity.bob = await admin.createIdentity('bob', { externalId: 'bob@corp.example' });
  identity.noExtJwt = await admin.createIdentity('no-ext-jwt-user', { authPolicyId: noExtJwt });
  identity.onlyJwks = await admin.createIdentity('only-jwks-user', { authPolicyId: onlyJwks });
  identity.disabled = await admin.createIdentity('soon-disabled');
  const current = await controller.http.get(`${controller.managementApi}/current-api-session`, { headers: admin.headers });
  identity.admin = current.json.data.identityId;
});

after(async () => {
  await jwks?.close();
  await untrustedJwks?.close();
  await controller?.dispose();
  if (pkiRoot) rmSync(pkiRoot, { recursive: true, force: true });
});

function allowPrivateJwksAddresses(yaml: string): string {
  const edited = yaml.replace('allowPrivateJwksAddresses: false', 'allowPrivateJwksAddresses: true');
  assert.notEqual(edited, yaml, 'the example config names edge.extJwt.allowPrivateJwksAddresses');
  return edited;
}

const aud = (name: string) => `${name}-audience`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

function claims(issuer: string, audience: string, sub: string, extra: JWTPayload = {}): JWTPayload {
  return { iss: issuer, aud: audience, sub, iat: nowSeconds(), exp: nowSeconds() + 600, ...extra };
}

function extJwtLogin(token?: string, body?: unknown): Promise<HttpResponse> {
  if (token !== undefined) sentTokens.push(token);
  return controller.http.post(`${controller.clientApi}/authenticate?method=ext-jwt`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    rawBody: body === undefined ? '' : JSON.stringify(body),
  });
}

/** A 200 login whose session belongs to `identityId` and works on a full-session route. */
async function assertLoggedInAs(response: HttpResponse, identityId: string, signerId: string): Promise<void> {
  assert.equal(response.status, 200, response.text);
  const session = response.json.data;
  assert.equal(response.headers['zt-session'], session.token);
  assert.equal(session.identityId, identityId);
  assert.equal(session.identity.id, identityId);
  assert.equal(session.authenticatorId, signerId);
  assert.deepEqual(session.authQueries, []);
  assert.equal(response.headers['www-authenticate'], undefined);
  const me = await controller.http.get(`${controller.clientApi}/current-identity`, { headers: { 'zt-session': session.token } });
  assert.equal(me.status, 200, me.text);
  assert.equal(me.json.data.id, identityId);
}

/**
 * A refused ext-jwt login: 401 UNAUTHORIZED with the primary challenge naming every enabled signer, no session
 * created, and a log line `ext-jwt authentication failed` giving the reason.
 */
async function assertRefused(token: string | undefined, error: ChallengeError, logDetail: RegExp): Promise<void> {
  await assertRefusedBy(() => extJwtLogin(token), error, logDetail);
}

async function assertRefusedBy(send: () => Promise<HttpResponse>, error: ChallengeError, logDetail: RegExp): Promise<void> {
  const sessionsBefore = await admin.sessionCount();
  const log = new LogCursor(controller);
  const response = await send();
  assert.equal(response.status, 401, response.text);
  assert.equal(response.json.error.code, 'UNAUTHORIZED');
  assert.equal(response.headers['zt-session'], undefined);
  assert.equal(response.json.data, undefined);
  assertExtJwtChallenge(response.headers['www-authenticate'], 'openziti-primary-ext-jwt', error, await admin.enabledSigners());
  const record = await log.next((line) => line.msg === 'ext-jwt authentication failed');
  assert.equal(record.level, 'info');
  assert.equal(record.reason, error);
  assert.match(String(record.detail), logDetail);
  assert.equal(await admin.sessionCount(), sessionsBefore, 'a refused login creates no API session');
}

// ---- signers CRUD ----

test('a signer with certPem is created with the defaults and the certificate facts in its detail', async () => {
  const id = await admin.createSigner({ name: 'crud-cert', issuer: 'https://crud-cert.idp.test', audience: 'crud', enabled: true, certPem: keys.ec.certPem });
  const detail = await admin.detail(`/external-jwt-signers/${id}`);
  const certificate = new X509Certificate(keys.ec.certPem);
  assert.equal(detail.id, id);
  assert.equal(detail.name, 'crud-cert');
  assert.equal(detail.issuer, 'https://crud-cert.idp.test');
  assert.equal(detail.audience, 'crud');
  assert.equal(detail.enabled, true);
  assert.equal(detail.claimsProperty, 'sub');
  assert.equal(detail.useExternalId, false);
  assert.equal(detail.jwksEndpoint, null);
  assert.equal(detail.certPem.trim(), keys.ec.certPem.trim());
  assert.equal(detail.commonName, 'ec-1');
  assert.equal(detail.fingerprint, certificate.fingerprint.replaceAll(':', '').toLowerCase());
  assert.equal(Date.parse(detail.notBefore), Date.parse(certificate.validFrom));
  assert.equal(Date.parse(detail.notAfter), Date.parse(certificate.validTo));
  assert.deepEqual(detail.tags, {});
  assert.equal(detail._links.self.href, `./external-jwt-signers/${id}`);
  const jwksSigner = await admin.detail(`/external-jwt-signers/${signer.jwks}`);
  assert.equal(jwksSigner.jwksEndpoint, jwks.url);
  assert.equal(jwksSigner.certPem, null);
  assert.equal(jwksSigner.commonName, '', 'no certificate: empty, as the spec allows no null');
  assert.equal(jwksSigner.fingerprint, '');
  assert.equal(jwksSigner.notBefore, '0001-01-01T00:00:00.000Z');
  await admin.ok('DELETE', `/external-jwt-signers/${id}`);
});

test('signer create refuses a missing field, neither or both key sources, an http JWKS endpoint and a duplicate name', async () => {
  const valid = { name: 'crud-refused', issuer: 'https://crud-refused.idp.test', audience: 'crud', enabled: true, certPem: keys.ec.certPem };
  const { certPem: _certPem, ...withoutKey } = valid;
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no name', { ...valid, name: undefined }, 'name'],
    ['no issuer', { ...valid, issuer: undefined }, 'issuer'],
    ['no audience', { ...valid, audience: undefined }, 'audience'],
    ['no enabled', { ...valid, enabled: undefined }, 'enabled'],
    ['neither certPem nor jwksEndpoint', withoutKey, 'certPem'],
    ['both certPem and jwksEndpoint', { ...valid, jwksEndpoint: 'https://crud.idp.test/jwks' }, 'jwksEndpoint'],
    ['http jwksEndpoint', { ...withoutKey, jwksEndpoint: 'http://crud.idp.test/jwks' }, 'jwksEndpoint'],
    ['a certPem that is no certificate', { ...valid, certPem: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n' }, 'certPem'],
    ['a duplicate name', { ...valid, name: 'rsa' }, 'name'],
  ];
  for (const [what, body, field] of cases) {
    const response = await admin.request('POST', '/external-jwt-signers', JSON.parse(JSON.stringify(body)));
    assert.equal(response.status, 400, `${what}: ${response.text}`);
    assert.equal(response.json.error.code, 'COULD_NOT_VALIDATE', what);
    assert.match(JSON.stringify(response.json.error.cause), new RegExp(field), what);
  }
  const duplicate = await admin.request('POST', '/external-jwt-signers', { ...valid, name: 'rsa' });
  assert.match(duplicate.json.error.cause.reason, /duplicate value 'rsa'/);
  const all = await admin.request('GET', '/external-jwt-signers?limit=500');
  assert.equal(all.json.data.filter((s: { name: string }) => s.name === 'crud-refused').length, 0, 'nothing was created');
});

test('PUT replaces a signer, PATCH changes only what it names, DELETE removes it', async () => {
  const id = await admin.createSigner({ name: 'crud-update', issuer: 'https://crud-update.idp.test', audience: 'a1', enabled: true, certPem: keys.ec.certPem, claimsProperty: 'email' });
  await admin.ok('PUT', `/external-jwt-signers/${id}`, { name: 'crud-updated', issuer: 'https://crud-updated.idp.test', audience: 'a2', enabled: false, jwksEndpoint: 'https://crud-updated.idp.test/jwks' });
  let detail = await admin.detail(`/external-jwt-signers/${id}`);
  assert.equal(detail.name, 'crud-updated');
  assert.equal(detail.issuer, 'https://crud-updated.idp.test');
  assert.equal(detail.audience, 'a2');
  assert.equal(detail.enabled, false);
  assert.equal(detail.certPem, null);
  assert.equal(detail.commonName, '');
  assert.equal(detail.jwksEndpoint, 'https://crud-updated.idp.test/jwks');
  assert.equal(detail.claimsProperty, 'sub', 'PUT resets what it leaves out');

  const badPut = await admin.request('PUT', `/external-jwt-signers/${id}`, { name: 'crud-updated', issuer: 'https://x.test', enabled: true, jwksEndpoint: 'https://x.test/jwks' });
  assert.equal(badPut.status, 400, 'PUT needs every required field');

  await admin.ok('PATCH', `/external-jwt-signers/${id}`, { audience: 'a3', claimsProperty: 'upn' });
  detail = await admin.detail(`/external-jwt-signers/${id}`);
  assert.equal(detail.audience, 'a3');
  assert.equal(detail.claimsProperty, 'upn');
  assert.equal(detail.name, 'crud-updated');
  assert.equal(detail.issuer, 'https://crud-updated.idp.test');
  assert.equal(detail.jwksEndpoint, 'https://crud-updated.idp.test/jwks');

  await admin.ok('PATCH', `/external-jwt-signers/${id}`, { certPem: keys.rsa.certPem });
  detail = await admin.detail(`/external-jwt-signers/${id}`);
  assert.equal(detail.jwksEndpoint, null, 'a PATCH to certPem switches the key source');
  assert.equal(detail.commonName, 'rsa-1');

  const rename = await admin.request('PATCH', `/external-jwt-signers/${id}`, { name: 'rsa' });
  assert.equal(rename.status, 400, 'renaming onto a taken name is refused');
  assert.equal(rename.json.error.code, 'COULD_NOT_VALIDATE');

  await admin.ok('DELETE', `/external-jwt-signers/${id}`);
  const gone = await admin.request('GET', `/external-jwt-signers/${id}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.json.error.code, 'NOT_FOUND');
  assert.equal((await admin.request('DELETE', `/external-jwt-signers/${id}`)).status, 404);
});

test('a signer an auth policy allows can not be deleted: 409 CAN_NOT_DELETE_REFERENCED_ENTITY', async () => {
  const response = await admin.request('DELETE', `/external-jwt-signers/${signer.jwks}`);
  assert.equal(response.status, 409, response.text);
  assert.equal(response.json.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  await admin.detail(`/external-jwt-signers/${signer.jwks}`);
});

test('the client API lists enabled signers to anyone, without key material', async () => {
  const response = await controller.http.get(`${controller.clientApi}/external-jwt-signers?limit=500`);
  assert.equal(response.status, 200, response.text);
  const listed = response.json.data as Array<Record<string, unknown>>;
  const ids = listed.map((entry) => entry.id).sort();
  assert.deepEqual(ids, (await admin.enabledSigners()).map(([id]) => id).sort());
  assert.ok(ids.includes(signer.rsa));
  assert.ok(!ids.includes(signer.disabled), 'a disabled signer is not listed');
  const rsa = listed.find((entry) => entry.id === signer.rsa)!;
  assert.equal(rsa.name, 'rsa');
  assert.equal(rsa.audience, aud('rsa'));
  for (const field of ['certPem', 'jwksEndpoint', 'kid', 'fingerprint', 'commonName', 'issuer', 'claimsProperty', 'useExternalId']) {
    assert.ok(!(field in rsa), `the public list leaves out ${field}`);
  }
  assert.doesNotMatch(response.text, /BEGIN CERTIFICATE|jwks\.json/);
});

test('non-admins and callers without a session get 401 from the management signer routes', async () => {
  await admin.createIdentity('plain-user', { password: 'plain-password' });
  const userToken = await controller.login('plain-user', 'plain-password', 'management');
  const url = `${controller.managementApi}/external-jwt-signers`;
  const body = { name: 'nope', issuer: 'https://nope.test', audience: 'nope', enabled: true, certPem: keys.ec.certPem };
  for (const headers of [{ 'zt-session': userToken }, {}] as Array<Record<string, string>>) {
    const responses = [
      await controller.http.get(url, { headers }),
      await controller.http.post(url, { headers, body }),
      await controller.http.get(`${url}/${signer.rsa}`, { headers }),
      await controller.http.patch(`${url}/${signer.rsa}`, { headers, body: { enabled: false } }),
      await controller.http.put(`${url}/${signer.rsa}`, { headers, body }),
      await controller.http.delete(`${url}/${signer.rsa}`, { headers }),
    ];
    for (const response of responses) {
      assert.equal(response.status, 401, response.text);
      assert.equal(response.json.error.code, 'UNAUTHORIZED');
    }
  }
  assert.equal((await admin.detail(`/external-jwt-signers/${signer.rsa}`)).enabled, true, 'nothing changed');
});

// ---- primary login ----

test('an RS256 JWT from a certPem signer logs in the identity whose id is its sub', async () => {
  const token = await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.alice));
  await assertLoggedInAs(await extJwtLogin(token), identity.alice, signer.rsa);
  // The optional body carries only envInfo/sdkInfo/configTypes; it does not change who logs in.
  await assertLoggedInAs(await extJwtLogin(token, { envInfo: { os: 'linux' }, sdkInfo: { type: 'test' } }), identity.alice, signer.rsa);
  // `aud` may be a list; it only has to contain the signer's audience.
  const manyAudiences = await signToken(keys.rsa, claims(issuers.rsa, 'unused', identity.alice, { aud: ['someone-else', aud('rsa')] }));
  await assertLoggedInAs(await extJwtLogin(manyAudiences), identity.alice, signer.rsa);
});

test('a JWKS signer: the controller fetches the keys over TLS it trusts through its own CA', async () => {
  const fetchesBefore = jwks.fetches;
  const token = await signToken(keys.jwks1, claims(issuers.jwks, aud('jwks'), identity.alice));
  await assertLoggedInAs(await extJwtLogin(token), identity.alice, signer.jwks);
  assert.ok(jwks.fetches > fetchesBefore, 'the JWKS endpoint was fetched');
  await assertLoggedInAs(await extJwtLogin(token), identity.alice, signer.jwks);
});

test('by default a controller refuses a JWKS endpoint on a loopback address: the login fails and the endpoint sees no request', async () => {
  const strict = await ControllerFixture.create();
  try {
    const strictAdmin = new EdgeAdmin(strict, await strict.adminToken());
    const internal = await strictAdmin.createSigner({ name: 'internal', issuer: issuers.jwks, audience: aud('internal'), enabled: true, jwksEndpoint: jwks.url });
    const someone = await strictAdmin.createIdentity('someone');
    const fetchesBefore = jwks.fetches;
    const log = new LogCursor(strict);
    const token = await signToken(keys.jwks1, claims(issuers.jwks, aud('internal'), someone));
    sentTokens.push(token);
    const response = await strict.http.post(`${strict.clientApi}/authenticate?method=ext-jwt`, { headers: { authorization: `Bearer ${token}` }, rawBody: '' });
    assert.equal(response.status, 401, response.text);
    assert.equal(response.headers['zt-session'], undefined);
    const record = await log.next((line) => line.msg === 'ext-jwt authentication failed');
    assert.match(String(record.detail), /127\.0\.0\.1 is a loopback address; JWKS endpoints must be public unless edge\.extJwt\.allowPrivateJwksAddresses is true/);
    assert.equal(jwks.fetches, fetchesBefore, 'the controller sent nothing to the internal address');
    assert.ok(internal);
  } finally {
    await strict.dispose();
  }
});

test('a JWKS token whose kid the endpoint does not publish is refused', async () => {
  const token = await signToken(keys.jwks2, claims(issuers.jwks, aud('jwks'), identity.alice));
  await assertRefused(token, 'invalid', /unknown kid "jwks-2"/);
});

test('an ES256 signer with claimsProperty email maps the email claim, not sub, to the identity id', async () => {
  const token = await signToken(keys.ec, claims(issuers.ec, aud('ec-email'), identity.admin, { email: identity.alice }));
  await assertLoggedInAs(await extJwtLogin(token), identity.alice, signer.ec);
  const withoutEmail = await signToken(keys.ec, claims(issuers.ec, aud('ec-email'), identity.alice));
  await assertRefused(withoutEmail, 'invalid', /the claim email is missing/);
});

test('a useExternalId signer matches the claim against externalId, not id', async () => {
  const token = await signToken(keys.rsa2, claims(issuers.externalId, aud('external-id'), 'bob@corp.example'));
  await assertLoggedInAs(await extJwtLogin(token), identity.bob, signer.externalId);
  const byId = await signToken(keys.rsa2, claims(issuers.externalId, aud('external-id'), identity.bob));
  await assertRefused(byId, 'invalid', /no identity has externalId/);
});

test('bearer tokens in repeated or comma-joined Authorization headers are all tried, up to three', async () => {
  const good = await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.alice));
  const wrongAudience = await signToken(keys.rsa, claims(issuers.rsa, 'another-audience', identity.alice));
  sentTokens.push(good, wrongAudience);
  const url = `${controller.clientApi}/authenticate?method=ext-jwt`;
  const send = (authorization: string | string[]) => requestWithRepeatedHeaders(controller.caPem, 'POST', url, { authorization });
  await assertLoggedInAs(await send(['Bearer not-a-jwt', `Bearer ${good}`]), identity.alice, signer.rsa);
  await assertLoggedInAs(await send([`Bearer ${wrongAudience}`, `Bearer ${wrongAudience}`, `Bearer ${good}`]), identity.alice, signer.rsa);
  await assertLoggedInAs(await send(`Bearer ${wrongAudience}, Bearer ${good}`), identity.alice, signer.rsa);
  // A fourth token is never looked at.
  await assertRefusedBy(() => send([...Array(3).fill(`Bearer ${wrongAudience}`), `Bearer ${good}`]), 'invalid', /audience/);
});

// ---- refusals ----

test('no bearer token (or a non-bearer or malformed one) is refused as missing', async () => {
  await assertRefused(undefined, 'missing', /no Bearer token/);
  const basic = await controller.http.post(`${controller.clientApi}/authenticate?method=ext-jwt`, { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } });
  assert.equal(basic.status, 401);
  assertExtJwtChallenge(basic.headers['www-authenticate'], 'openziti-primary-ext-jwt', 'missing', await admin.enabledSigners());
  await assertRefused('not-a-jwt', 'missing', /not a compact JWS/);
});

test('an expired token is refused as expired; a not-yet-valid one as invalid', async () => {
  const expired = await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.alice, { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 }));
  await assertRefused(expired, 'expired', /expired/);
  const early = await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.alice, { nbf: nowSeconds() + 3600 }));
  await assertRefused(early, 'invalid', /not valid yet/);
});

test('a wrong issuer or a wrong audience is refused', async () => {
  await assertRefused(await signToken(keys.rsa, claims('https://someone-else.idp.test', aud('rsa'), identity.alice)), 'invalid', /no enabled signer for issuer "https:\/\/someone-else/);
  await assertRefused(await signToken(keys.rsa, claims(issuers.rsa, 'another-audience', identity.alice)), 'invalid', /audience/);
});

test('a tampered payload and a signature by another key are refused', async () => {
  const genuine = await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.alice));
  await assertLoggedInAs(await extJwtLogin(genuine), identity.alice, signer.rsa);
  const [header, , signature] = genuine.split('.');
  const tampered = `${header}.${base64url(claims(issuers.rsa, aud('rsa'), identity.admin))}.${signature}`;
  await assertRefused(tampered, 'invalid', /signature does not verify/);
  const forged = await signToken(keys.forger, claims(issuers.rsa, aud('rsa'), identity.admin));
  await assertRefused(forged, 'invalid', /signature does not verify/);
});

test('alg none and HS256 keyed with the signer public key are refused before any key is used', async () => {
  const payload = claims(issuers.rsa, aud('rsa'), identity.admin);
  const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`;
  await assertRefused(unsigned, 'invalid', /algorithm "none" is not accepted/);
  for (const secret of [keys.rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string, keys.rsa.certPem]) {
    const confused = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: keys.rsa.kid }).sign(new TextEncoder().encode(secret));
    await assertRefused(confused, 'invalid', /algorithm "HS256" is not accepted/);
  }
});

test('a disabled signer is refused and left out of the challenge', async () => {
  const token = await signToken(keys.disabled, claims(issuers.disabled, aud('disabled'), identity.alice));
  await assertRefused(token, 'invalid', /no enabled signer for issuer "https:\/\/disabled/);
  // Enabled, the same token logs in: the refusal was the signer's state alone.
  await admin.ok('PATCH', `/external-jwt-signers/${signer.disabled}`, { enabled: true });
  try {
    await assertLoggedInAs(await extJwtLogin(token), identity.alice, signer.disabled);
  } finally {
    await admin.ok('PATCH', `/external-jwt-signers/${signer.disabled}`, { enabled: false });
  }
  await assertRefused(token, 'invalid', /no enabled signer/);
});

test('a sub that names no identity is refused', async () => {
  await assertRefused(await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), 'no-such-identity')), 'invalid', /no identity has id "no-such-identity"/);
});

test('an auth policy that forbids ext-jwt, or allows only other signers, refuses the login', async () => {
  await assertRefused(await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.noExtJwt)), 'invalid', /does not allow ext-jwt authentication/);
  await assertRefused(await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.onlyJwks)), 'invalid', new RegExp(`does not allow signer ${signer.rsa}`));
  // The signer that policy does allow gets in.
  await assertLoggedInAs(await extJwtLogin(await signToken(keys.jwks1, claims(issuers.jwks, aud('jwks'), identity.onlyJwks))), identity.onlyJwks, signer.jwks);
});

test('a disabled identity is refused until it is enabled again', async () => {
  const token = await signToken(keys.rsa, claims(issuers.rsa, aud('rsa'), identity.disabled));
  await assertLoggedInAs(await extJwtLogin(token), identity.disabled, signer.rsa);
  await admin.ok('POST', `/identities/${identity.disabled}/disable`, { durationMinutes: 60 });
  await assertRefused(token, 'invalid', /identity disabled/);
  await admin.ok('POST', `/identities/${identity.disabled}/enable`);
  await assertLoggedInAs(await extJwtLogin(token), identity.disabled, signer.rsa);
});

test('a JWKS endpoint whose TLS certificate the controller does not trust yields no keys', async () => {
  const token = await signToken(keys.jwks1, claims(issuers.untrusted, aud('untrusted-tls'), identity.alice));
  await assertRefused(token, 'invalid', /keys are unavailable/);
  assert.equal(untrustedJwks.requests, 0, 'the TLS handshake failed before any request');
});

// ---- rotation (last: the controller refetches a JWKS at most every 10 s) ----

test('key rotation: once the JWKS publishes a new kid, a token with it logs in and the old kid is refused', async () => {
  const newKid = await signToken(keys.jwks2, claims(issuers.jwks, aud('jwks'), identity.alice));
  const oldKid = await signToken(keys.jwks1, claims(issuers.jwks, aud('jwks'), identity.alice));
  jwks.publish([keys.jwks2.jwk]);
  // The controller refetches an unknown kid at most once per 10 s per endpoint; wait out the last fetch.
  await sleep(Math.max(0, jwks.lastFetchAt + 10_500 - Date.now()));
  const fetchesBefore = jwks.fetches;
  await assertLoggedInAs(await extJwtLogin(newKid), identity.alice, signer.jwks);
  assert.equal(jwks.fetches, fetchesBefore + 1, 'the unknown kid made the controller fetch the JWKS once');
  await assertRefused(oldKid, 'invalid', /unknown kid "jwks-1"/);
});

test('the controller log never contains a bearer token', () => {
  const log = controller.readLog();
  assert.ok(log.includes('ext-jwt authentication failed'), 'the log holds the refusals');
  assert.ok(sentTokens.length > 20);
  for (const token of sentTokens) {
    assert.ok(!log.includes(token), `the log contains a token: ${token.slice(0, 20)}...`);
    for (const part of token.split('.').filter((segment) => segment.length > 40)) {
      assert.ok(!log.includes(part), 'the log contains part of a token');
    }
  }
});
