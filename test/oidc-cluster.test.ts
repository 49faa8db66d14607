// OIDC against a three-controller cluster, with openid-client (an independent relying party from npm) and a user
// agent that follows the controller's login steps: PKCE logins by password, password + TOTP, certificate over mutual
// TLS and external JWT; the access token used on both Edge APIs of every controller; a refresh on another controller
// after the one that issued the token is SIGKILLed; revocations (logout, an administrator's, a disabled identity)
// refused on every controller within seconds; tampered, expired, foreign-key and unsigned tokens refused with the
// API's envelope and OpenZiti's Bearer challenge.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as client from 'openid-client';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeAdmin } from './support/ext-jwt-support.ts';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { CertAuthClient } from './support/cert-auth-client.ts';
import { makeSigningKey, signToken, type TestSigningKey } from '../server/auth/ext-jwt/test-signing-keys.ts';
import { authorize, finishLogin, jwtClaims, loginStep, relyingParty } from './support/oidc-user-agent.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-oidc-'));
const accessTokenSeconds = 20;
let nodes: ControllerFixture[] = [];
let admin: EdgeAdmin;
let certKit: CertAuthClient;
let extKey: TestSigningKey;
let cert: { identityId: string; cert: string; key: string };
let totpApp: AuthenticatorApp;
const ids: Record<string, string> = {};
const password = (name: string) => `${name}-secret-password`;

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'), {
    editConfig: (yaml) => yaml.replace(/^edge:\n/m, `edge:\n  oidc:\n    accessTokenDuration: ${accessTokenSeconds}s\n`),
  });
  admin = new EdgeAdmin(nodes[0]!, await until('an admin session', () => nodes[0]!.adminToken()));
  ids.password = await admin.createIdentity('oidc-password', { password: password('oidc-password') });
  ids.totp = await admin.createIdentity('oidc-totp', { password: password('oidc-totp') });
  extKey = await makeSigningKey('rsa', 'oidc-ext-key');
  const signer = await admin.createSigner({ name: 'oidc-ext', issuer: 'https://idp.oidc.test', audience: 'edgeward', enabled: true, certPem: extKey.certPem, kid: extKey.kid, claimsProperty: 'sub' });
  const extPolicy = await admin.createPolicy('oidc-ext-policy', { extJwt: { allowed: true, allowedSigners: [signer] } });
  ids.ext = await admin.createIdentity('oidc-ext', { authPolicyId: extPolicy });
  ids.disabled = await admin.createIdentity('oidc-disabled', { password: password('oidc-disabled') });
  certKit = await CertAuthClient.create(nodes[0]!);
  cert = await enrolledCertificate('oidc-cert');
  totpApp = await enrollTotp('oidc-totp');
  // Each controller signs once its key is committed: all three keys published, seen by every controller.
  for (const node of nodes) await until(`three signing keys on ${node.id}`, async () => ((await node.http.get(`${node.origin}/oidc/keys`)).json?.keys?.length ?? 0) >= 3);
  // Every controller must know every identity before the logins spread across them.
  for (const node of nodes) await until(`identities on ${node.id}`, async () => (await node.http.get(`${node.managementApi}/identities/${ids.ext}`, { headers: admin.headers })).status === 200);
});

after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

/** An identity enrolled with a one-time token: its certificate chain and key (PEM). */
async function enrolledCertificate(name: string) {
  const identityId = await admin.create('/identities', { name, type: 'Device', isAdmin: false, enrollment: { ott: true } });
  const token = (await admin.detail(`/identities/${identityId}`)).enrollment.ott.token as string;
  const { keyFile, csrPem } = await certKit.workbench.keyAndCsr(name);
  const node = nodes[0]!;
  const response = await node.http.post(`${node.clientApi}/enroll?method=ott&token=${encodeURIComponent(token)}`, { headers: { 'content-type': 'text/plain', accept: 'application/x-pem-file' }, rawBody: csrPem });
  assert.equal(response.status, 200, response.text);
  return { identityId, cert: response.text, key: readFileSync(keyFile, 'utf8') };
}

/** TOTP enrolled (and verified) through a legacy session of the identity. */
async function enrollTotp(name: string): Promise<AuthenticatorApp> {
  const node = nodes[0]!;
  const login = await node.http.post(`${node.clientApi}/authenticate?method=password`, { body: { username: name, password: password(name) } });
  assert.equal(login.status, 200, login.text);
  const session = { 'zt-session': login.json.data.token as string };
  const started = await node.http.post(`${node.clientApi}/current-identity/mfa`, { headers: session });
  assert.equal(started.status, 201, started.text);
  const app = AuthenticatorApp.fromUrl(started.json.data.provisioningUrl as string);
  const verified = await node.http.post(`${node.clientApi}/current-identity/mfa/verify`, { headers: session, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);
  return app;
}

/** A whole password login through `node`: the tokens openid-client got. */
async function passwordLogin(node: ControllerFixture, name: string) {
  const config = await relyingParty(node.http, node.origin);
  const pending = await authorize(node.http, config);
  assert.equal(pending.loginPath, '/oidc/login/username');
  const answer = await loginStep(node.http, node.origin, 'password', pending, { username: name, password: password(name) });
  return { config, tokens: await finishLogin(node.http, config, pending, answer) };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function currentIdentity(node: ControllerFixture, api: 'client' | 'management', token: string) {
  return node.http.get(`${api === 'client' ? node.clientApi : node.managementApi}/current-identity`, { headers: bearer(token) });
}

test('every controller advertises OIDC in /version and serves discovery at both paths', async () => {
  for (const node of nodes) {
    const version = await node.http.get(`${node.origin}/version`);
    assert.equal(version.status, 200);
    assert.ok(version.json.data.capabilities.includes('OIDC_AUTH'), version.text);
    assert.equal(version.json.data.apiVersions['edge-oidc'].v1.path, '/oidc');
    const issuer = `${node.origin}/oidc`;
    for (const path of ['/oidc/.well-known/openid-configuration', '/.well-known/openid-configuration']) {
      const discovery = await node.http.get(`${node.origin}${path}`);
      assert.equal(discovery.status, 200, `${path}: ${discovery.text}`);
      assert.equal(discovery.json.issuer, issuer);
      assert.deepEqual(discovery.json.code_challenge_methods_supported, ['S256']);
    }
  }
});

test('a password login on one controller: the access token works on both APIs of every controller', async () => {
  const { tokens } = await passwordLogin(nodes[1]!, 'oidc-password');
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  const claims = tokens.claims();
  assert.equal(claims?.sub, ids.password);
  const access = jwtClaims(tokens.access_token);
  assert.equal(access.z_t, 'a');
  assert.equal(access.sub, ids.password);
  for (const node of nodes) {
    for (const api of ['client', 'management'] as const) {
      const response = await currentIdentity(node, api, tokens.access_token);
      assert.equal(response.status, 200, `${node.id} ${api}: ${response.text}`);
      assert.equal(response.json.data.id, ids.password);
    }
    const session = await node.http.get(`${node.clientApi}/current-api-session`, { headers: bearer(tokens.access_token) });
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json.data.id, access.z_asid);
  }
});

test('password + TOTP: the login answers the TOTP query first, a wrong code is refused, the right one completes it', async () => {
  const node = nodes[2]!;
  const config = await relyingParty(node.http, node.origin);
  const pending = await authorize(node.http, config);
  const first = await loginStep(node.http, node.origin, 'password', pending, { username: 'oidc-totp', password: password('oidc-totp') });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers['totp-required'], 'true');
  assert.deepEqual(first.json.authQueries.map((query: { typeId: string; isTotpEnrolled: boolean }) => [query.typeId, query.isTotpEnrolled]), [['TOTP', true]]);
  const queries = await node.http.get(`${node.origin}/oidc/login/auth-queries?id=${pending.authRequestId}`);
  assert.equal(queries.status, 200, queries.text);
  assert.equal(queries.json.authQueries[0].typeId, 'TOTP');
  // The callback will not hand out a code before the second factor.
  const early = await node.http.get(`${node.origin}/oidc/authorize/callback?id=${pending.authRequestId}`);
  assert.equal(early.status, 302);
  assert.match(String(early.headers.location), /error=interaction_required/);
  const wrong = await loginStep(node.http, node.origin, 'totp', pending, { code: totpApp.wrongCode() });
  assert.equal(wrong.status, 400, wrong.text);
  assert.equal(wrong.json.code, 'INVALID TOTP CODE');
  const right = await loginStep(node.http, node.origin, 'totp', pending, { code: await totpApp.nextCode() });
  const tokens = await finishLogin(node.http, config, pending, right);
  assert.deepEqual(jwtClaims(tokens.access_token).amr, ['password', 'totp']);
  const session = await nodes[0]!.http.get(`${nodes[0]!.clientApi}/current-api-session`, { headers: bearer(tokens.access_token) });
  assert.equal(session.status, 200, session.text);
  assert.equal(session.json.data.isMfaComplete, true);
});

test('certificate login over mutual TLS, and an external JWT login', async () => {
  const node = nodes[0]!;
  const config = await relyingParty(node.http, node.origin);
  // Presenting the certificate at /authorize sends the agent to the certificate login, as OpenZiti's controller does.
  const pending = await authorize(node.http, config, {}, { cert: cert.cert, key: cert.key });
  assert.equal(pending.loginPath, '/oidc/login/cert');
  const refused = await loginStep(node.http, node.origin, 'cert', pending);
  assert.equal(refused.status, 401, `no certificate, no login: ${refused.text}`);
  assert.equal(refused.json.code, 'INVALID_AUTH');
  const answer = await loginStep(node.http, node.origin, 'cert', pending, {}, { cert: cert.cert, key: cert.key });
  const tokens = await finishLogin(node.http, config, pending, answer);
  assert.equal(jwtClaims(tokens.access_token).sub, cert.identityId);
  assert.equal((await currentIdentity(nodes[1]!, 'client', tokens.access_token)).json.data.id, cert.identityId);

  const ext = await relyingParty(nodes[1]!.http, nodes[1]!.origin);
  const extPending = await authorize(nodes[1]!.http, ext, { method: 'ext-jwt' });
  assert.equal(extPending.loginPath, '/oidc/login/ext-jwt');
  const now = Math.floor(Date.now() / 1000);
  const external = await signToken(extKey, { iss: 'https://idp.oidc.test', aud: 'edgeward', sub: ids.ext, iat: now, exp: now + 300 });
  const extAnswer = await loginStep(nodes[1]!.http, nodes[1]!.origin, 'ext-jwt', extPending, {}, { headers: bearer(external) });
  const extTokens = await finishLogin(nodes[1]!.http, ext, extPending, extAnswer);
  assert.equal(jwtClaims(extTokens.access_token).sub, ids.ext);
  assert.deepEqual(jwtClaims(extTokens.access_token).amr, ['ext-jwt']);
  assert.equal((await currentIdentity(nodes[2]!, 'management', extTokens.access_token)).json.data.id, ids.ext);
});

/** openid-client's error for a refused grant. */
const invalidGrant = (error: unknown) => (error as { error?: string }).error === 'invalid_grant';

/** 401 UNAUTHORIZED in the API's envelope with OpenZiti's Bearer challenge of `error` on every controller. */
async function refusedEverywhere(token: string, error: 'invalid' | 'expired', live = nodes) {
  for (const node of live) {
    const response = await currentIdentity(node, 'client', token);
    assert.equal(response.status, 401, `${node.id}: ${response.text}`);
    assert.equal(response.json.error.code, 'UNAUTHORIZED');
    assert.ok(response.json.meta, 'the API envelope');
    assert.equal(response.headers['www-authenticate'], `Bearer realm="openziti-oidc" error="${error}" error_description="${error === 'expired' ? 'token expired' : 'token is invalid'}"`);
  }
}

test('tampered, foreign-key, unsigned, refresh-as-access and expired tokens are refused with the envelope', async () => {
  const { tokens } = await passwordLogin(nodes[0]!, 'oidc-password');
  const [header, payload, signature] = tokens.access_token.split('.') as [string, string, string];
  const claims = jwtClaims(tokens.access_token);
  const reencode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  await refusedEverywhere(`${header}.${reencode({ ...claims, z_ia: true })}.${signature}`, 'invalid');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const foreignHeader = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>;
  const { sign } = await import('node:crypto');
  const foreignInput = `${reencode({ ...foreignHeader, kid: 'not-a-published-key' })}.${payload}`;
  await refusedEverywhere(`${foreignInput}.${sign('sha256', Buffer.from(foreignInput), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`, 'invalid');
  const sameKidForeign = `${header}.${payload}`;
  await refusedEverywhere(`${sameKidForeign}.${sign('sha256', Buffer.from(sameKidForeign), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`, 'invalid');
  await refusedEverywhere(`${reencode({ alg: 'none', typ: 'JWT' })}.${payload}.`, 'invalid');
  await refusedEverywhere(tokens.refresh_token!, 'invalid');
  await refusedEverywhere(tokens.id_token!, 'invalid');
  const wait = claims.exp * 1000 - Date.now() + 3_000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  await refusedEverywhere(tokens.access_token, 'expired');
});

test('revocations reach every controller within 5 s: an administrator\'s, a logout, a disabled identity', async () => {
  const revoked = await passwordLogin(nodes[1]!, 'oidc-password');
  const kept = await passwordLogin(nodes[1]!, 'oidc-password');
  const asid = jwtClaims(revoked.tokens.access_token).z_asid as string;
  const started = Date.now();
  const created = await admin.request('POST', '/revocations', { id: asid, type: 'API_SESSION', tags: {} });
  assert.equal(created.status, 201, created.text);
  await until('the revoked session refused everywhere', async () => {
    for (const node of nodes) if ((await currentIdentity(node, 'client', revoked.tokens.access_token)).status !== 401) return false;
    return true;
  }, 5_000);
  console.log(`API_SESSION revocation of an OIDC session: refused on every controller ${Date.now() - started} ms after the POST`);
  await assert.rejects(client.refreshTokenGrant(revoked.config, revoked.tokens.refresh_token!), invalidGrant);
  for (const node of nodes) assert.equal((await currentIdentity(node, 'client', kept.tokens.access_token)).status, 200, 'another session of the identity lives');

  const logoutStarted = Date.now();
  const logout = await nodes[2]!.http.delete(`${nodes[2]!.clientApi}/current-api-session`, { headers: bearer(kept.tokens.access_token) });
  assert.equal(logout.status, 200, logout.text);
  await until('the logged-out session refused everywhere', async () => {
    for (const node of nodes) if ((await currentIdentity(node, 'client', kept.tokens.access_token)).status !== 401) return false;
    return true;
  }, 5_000);
  console.log(`logout of an OIDC session: refused on every controller ${Date.now() - logoutStarted} ms after the DELETE`);

  const disabled = await passwordLogin(nodes[0]!, 'oidc-disabled');
  await admin.ok('POST', `/identities/${ids.disabled}/disable`, { durationMinutes: 0 });
  await until('the disabled identity refused everywhere', async () => {
    for (const node of nodes) if ((await currentIdentity(node, 'client', disabled.tokens.access_token)).status !== 401) return false;
    return true;
  }, 5_000);
  await assert.rejects(client.refreshTokenGrant(disabled.config, disabled.tokens.refresh_token!), invalidGrant);
});

test('malformed and hostile requests to every /oidc endpoint: a 4xx in its error shape, never a 5xx or a redirect elsewhere', async () => {
  const node = nodes[0]!;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const json = { 'content-type': 'application/json' };
  const long = 'x'.repeat(10_000);
  const goodChallenge = 'a'.repeat(43);
  const authorizeBase = `client_id=openziti&response_type=code&scope=openid&code_challenge=${goodChallenge}&code_challenge_method=S256&redirect_uri=`;
  const cases: Array<{ method: string; path: string; headers?: Record<string, string>; body?: string; status: number; shape: 'oauth' | 'login' | 'redirect-error' }> = [
    { method: 'GET', path: '/oidc/authorize', status: 400, shape: 'oauth' },
    { method: 'GET', path: '/oidc/authorize?client_id=evil', status: 400, shape: 'oauth' },
    { method: 'GET', path: `/oidc/authorize?${authorizeBase}${encodeURIComponent('https://evil.example/auth/callback')}`, status: 400, shape: 'oauth' },
    { method: 'GET', path: `/oidc/authorize?client_id=openziti&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/auth/callback')}&response_type=token`, status: 302, shape: 'redirect-error' },
    { method: 'GET', path: `/oidc/authorize?client_id=openziti&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/auth/callback')}&response_type=code&scope=openid`, status: 302, shape: 'redirect-error' },
    { method: 'GET', path: `/oidc/authorize?client_id=openziti&redirect_uri=${encodeURIComponent('http://127.0.0.1:1/auth/callback')}&response_type=code&scope=openid&code_challenge=${goodChallenge}&code_challenge_method=plain`, status: 302, shape: 'redirect-error' },
    { method: 'GET', path: `/oidc/authorize?client_id=${long}`, status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/authorize', headers: json, body: '{"client_id":"openziti"}', status: 415, shape: 'oauth' },
    { method: 'GET', path: '/oidc/authorize/callback?id=nope', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: form, body: 'grant_type=authorization_code&client_id=openziti&code=nope&code_verifier=nope', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: form, body: 'grant_type=authorization_code&client_id=evil', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: form, body: 'grant_type=refresh_token&client_id=openziti&refresh_token=a.b.c', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: form, body: `grant_type=refresh_token&client_id=openziti&refresh_token=${long}`, status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: form, body: 'grant_type=password&client_id=openziti', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: form, body: 'grant_type=urn:ietf:params:oauth:grant-type:token-exchange&client_id=openziti&subject_token=x&subject_token_type=urn:ietf:params:oauth:token-type:id_token', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: json, body: '{"grant_type":"refresh_token"}', status: 415, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: { authorization: 'Basic !!!', ...form }, body: 'grant_type=refresh_token', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/oauth/token', headers: { authorization: `Basic ${Buffer.from('%E0%A4%A:').toString('base64')}`, ...form }, body: 'grant_type=refresh_token', status: 400, shape: 'oauth' },
    { method: 'POST', path: '/oidc/login/password', headers: json, body: '{"id":"nope","username":"a","password":"b"}', status: 401, shape: 'login' },
    { method: 'POST', path: '/oidc/login/password', headers: json, body: '{"id":', status: 400, shape: 'login' },
    { method: 'POST', path: '/oidc/login/password', headers: json, body: '[1,2,3]', status: 400, shape: 'login' },
    { method: 'POST', path: '/oidc/login/password', headers: { 'content-type': 'text/plain' }, body: 'id=x', status: 415, shape: 'login' },
    { method: 'POST', path: '/oidc/login/cert', headers: form, body: `id=${long}`, status: 400, shape: 'login' },
    { method: 'POST', path: '/oidc/login/totp', headers: form, body: 'id=nope&code=123456', status: 401, shape: 'login' },
    { method: 'POST', path: '/oidc/login/totp/enroll', headers: form, body: 'id=nope', status: 401, shape: 'login' },
    { method: 'POST', path: '/oidc/login/totp/enroll/verify', headers: form, body: 'id=nope&code=1', status: 401, shape: 'login' },
    { method: 'GET', path: '/oidc/login/auth-queries?id=nope', status: 401, shape: 'login' },
    { method: 'POST', path: '/oidc/revoke', headers: form, body: 'client_id=evil&token=x', status: 400, shape: 'oauth' },
    { method: 'GET', path: '/oidc/userinfo', headers: { authorization: 'Bearer nope' }, status: 401, shape: 'oauth' },
  ];
  for (const request of cases) {
    const response = await node.http.request(request.method, `${node.origin}${request.path}`, { ...(request.headers ? { headers: request.headers } : {}), ...(request.body !== undefined ? { rawBody: request.body } : {}) });
    const what = `${request.method} ${request.path.slice(0, 120)}`;
    assert.equal(response.status, request.status, `${what}: ${response.status} ${response.text.slice(0, 200)}`);
    if (request.shape === 'oauth') assert.equal(typeof response.json?.error, 'string', `${what}: an OAuth error body`);
    if (request.shape === 'login') assert.equal(typeof response.json?.code, 'string', `${what}: a {code, message} body`);
    if (request.shape === 'redirect-error') assert.match(String(response.headers.location), /^http:\/\/127\.0\.0\.1:1\/auth\/callback\?error=/, what);
  }
  // After all that, a login still works.
  await passwordLogin(node, 'oidc-password');
});

test('a refresh on another controller after the issuing one is SIGKILLed', async () => {
  const issuer = nodes[2]!;
  const { tokens } = await passwordLogin(issuer, 'oidc-password');
  const asid = jwtClaims(tokens.access_token).z_asid;
  await issuer.stop('SIGKILL');
  const survivors = nodes.filter((node) => node !== issuer);
  const config = await relyingParty(survivors[0]!.http, survivors[0]!.origin);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  const claims = jwtClaims(refreshed.access_token);
  assert.equal(claims.z_asid, asid, 'the same API session');
  assert.equal(claims.iss, `${survivors[0]!.origin}/oidc`);
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'a new refresh token');
  for (const node of survivors) assert.equal((await currentIdentity(node, 'management', refreshed.access_token)).status, 200);
  // The refresh token just used is good no more: at once where it was used, within a flush everywhere else.
  await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token!), invalidGrant);
  const other = await relyingParty(survivors[1]!.http, survivors[1]!.origin);
  await until('the used refresh token refused on the other survivor', async () => client.refreshTokenGrant(other, tokens.refresh_token!).then(() => false, invalidGrant), 10_000);
  // The dead controller's own tokens still verify on the others until they expire: its key stays published.
  assert.equal((await currentIdentity(survivors[1]!, 'client', tokens.access_token)).status, 200);
});
