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
  certKit = await CertAuthClient.create(nodes[0]!);
  // Every controller must know every identity before the logins spread across them.
  for (const node of nodes) await until(`identities on ${node.id}`, async () => (await node.http.get(`${node.managementApi}/identities/${ids.ext}`, { headers: admin.headers })).status === 200);
});

after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

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
