// `edgeward edge` over OIDC against a three-controller cluster, each command its own process: the login (with its TOTP
// step when the identity has MFA) goes through the controllers' OIDC provider (PKCE) and keeps the tokens (never
// printed) in the 0600 session file; commands send them as Bearer and refresh them before they expire; when the
// controller of the login is SIGKILLed, the next command goes on through another controller of `/controllers` and says
// so; logout revokes the session on the cluster. A controller with `edge.oidc.enabled: false`, and `--legacy`, keep
// the legacy zt-session login.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { EdgeAdmin } from './support/ext-jwt-support.ts';
import { runEdgeCli } from './support/edge-cli-scenario.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-edge-cli-oidc-'));
const accessTokenSeconds = 20;
let nodes: ControllerFixture[] = [];
let legacyOnly: ControllerFixture | undefined;
let caFile: string;

before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'), {
    editConfig: (yaml) => yaml.replace(/^edge:\n/m, `edge:\n  oidc:\n    accessTokenDuration: ${accessTokenSeconds}s\n`),
  });
  caFile = join(root, 'ca-bundle.pem');
  writeFileSync(caFile, nodes[0]!.caPem);
});

after(async () => {
  await Promise.all([...nodes, ...(legacyOnly ? [legacyOnly] : [])].map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

const storedSession = (file: string) => {
  const book = JSON.parse(readFileSync(file, 'utf8'));
  return book.sessions[book.current];
};
const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

async function edge(sessionFile: string, args: readonly string[]) {
  const result = await runEdgeCli(args, { env: { EDGEWARD_EDGE_CLI_CONFIG: sessionFile } });
  return result;
}

async function ok(sessionFile: string, args: readonly string[]) {
  const result = await edge(sessionFile, args);
  assert.equal(result.code, 0, `edgeward edge ${args.join(' ')} failed (${String(result.code)}):\n${result.stderr}${result.stdout}`);
  return result;
}

test('an administrator with MFA logs in through OIDC with --mfa-code; without one nothing is stored', async () => {
  const node = nodes[1]!;
  const admin = new EdgeAdmin(node, await node.adminToken());
  const name = 'mfa-operator';
  const password = 'mfa-operator-password';
  await admin.createIdentity(name, { password, isAdmin: true });
  const legacy = { 'zt-session': await until('the new identity logs in', () => node.login(name, password)) };
  assert.equal((await node.http.post(`${node.clientApi}/current-identity/mfa`, { headers: legacy, body: {} })).status, 201);
  const app = AuthenticatorApp.fromUrl((await node.http.get(`${node.clientApi}/current-identity/mfa`, { headers: legacy })).json.data.provisioningUrl);
  assert.equal((await node.http.post(`${node.clientApi}/current-identity/mfa/verify`, { headers: legacy, body: { code: await app.nextCode() } })).status, 200);

  const sessionFile = join(root, 'mfa-session.json');
  const loginArgs = ['login', node.origin, '-u', name, '-p', password, '--ca', caFile];
  const owes = await edge(sessionFile, loginArgs);
  assert.equal(owes.code, 2, owes.stderr);
  assert.match(owes.stderr, new RegExp(`^edgeward edge login: ${name} owes an MFA code: give it with --mfa-code <code>`));
  assert.throws(() => statSync(sessionFile), 'nothing is stored');
  const wrong = await edge(sessionFile, [...loginArgs, '--mfa-code', '000000']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /^error: INVALID TOTP CODE: an invalid TOTP code was supplied$/m);
  const login = await ok(sessionFile, [...loginArgs, '--mfa-code', await app.nextCode()]);
  assert.match(login.stdout, /Logged in through OIDC/);
  const stored = storedSession(sessionFile);
  assert.deepEqual(claims(stored.token).amr, ['password', 'totp']);
  await ok(sessionFile, ['list', 'identities']);
  await ok(sessionFile, ['logout']);
});

test('login goes through OIDC, refreshes before expiry, fails over to another controller after a SIGKILL, and logout revokes', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  const sessionFile = join(root, 'oidc-session.json');
  for (const node of nodes) await until(`the admin known on ${node.id}`, async () => (await node.http.get(`${node.origin}/version`)).status === 200);

  const login = await ok(sessionFile, ['login', first.origin, '-u', adminCredentials.username, '-p', adminCredentials.password, '--ca', caFile]);
  assert.match(login.stdout, /^Logged in to https:\/\/.+\/edge\/management\/v1 as .+ \(username admin\)\nSession saved in .+\nLogged in through OIDC: the token is refreshed as it expires; 3 controller\(s\) known for failover\n$/);
  assert.equal(statSync(sessionFile).mode & 0o777, 0o600);
  const atLogin = storedSession(sessionFile);
  assert.equal(atLogin.controllerUrl, first.managementApi);
  assert.equal(claims(atLogin.token).z_t, 'a', 'the stored token is an OIDC access token');
  assert.equal(typeof claims(atLogin.token).z_asid, 'string');
  assert.equal(claims(atLogin.oidc.refreshToken).z_t, 'r');
  assert.deepEqual([...atLogin.oidc.controllers].sort(), nodes.map((node) => node.managementApi).sort(), 'every controller of /controllers is remembered');
  for (const secret of [atLogin.token, atLogin.oidc.refreshToken]) assert.ok(!login.stdout.includes(secret) && !login.stderr.includes(secret), 'tokens are never printed');
  // The token is honoured as Bearer by every controller, not only the one of the login.
  for (const node of nodes) assert.equal((await node.http.get(`${node.managementApi}/current-identity`, { headers: { authorization: `Bearer ${atLogin.token}` } })).status, 200, node.id);

  const listed = await ok(sessionFile, ['list', 'identities', '--json']);
  assert.ok((JSON.parse(listed.stdout) as Array<{ id: string }>).some((identity) => identity.id === claims(atLogin.token).sub), 'the list holds the admin the token names');

  // Past the refresh margin, the next command refreshes first: new tokens, same API session.
  await new Promise((resolve) => setTimeout(resolve, (accessTokenSeconds - 8) * 1000));
  await ok(sessionFile, ['list', 'identities']);
  const refreshed = storedSession(sessionFile);
  assert.notEqual(refreshed.oidc.refreshToken, atLogin.oidc.refreshToken, 'the refresh token was rotated');
  assert.ok(Date.parse(refreshed.oidc.expiresAt) > Date.parse(atLogin.oidc.expiresAt), 'the new access token lives longer');
  assert.equal(claims(refreshed.token).z_asid, claims(atLogin.token).z_asid);

  // The controller of the login dies: the next command goes on through another one and says so.
  await first.stop('SIGKILL');
  const failedOver = await ok(sessionFile, ['list', 'identities', '--json']);
  assert.match(failedOver.stderr, new RegExp(`^warning: controller ${first.origin.replace(/[.]/g, '\\.')} is unreachable: continuing through https://`, 'm'));
  const moved = storedSession(sessionFile);
  assert.ok([second.managementApi, third.managementApi].includes(moved.controllerUrl), moved.controllerUrl);
  assert.notEqual(moved.oidc.refreshToken, refreshed.oidc.refreshToken, 'the new controller refreshed the session');
  assert.ok(JSON.parse(failedOver.stdout).length > 0);
  // And the command after that goes straight to the new controller, with no further notice.
  const next = await ok(sessionFile, ['list', 'identities']);
  assert.equal(next.stderr, '');

  // Logout revokes: the last refresh token is refused on the cluster.
  const lastRefresh = storedSession(sessionFile).oidc.refreshToken as string;
  assert.match((await ok(sessionFile, ['logout'])).stdout, /^Logged out of /);
  const survivor = moved.controllerUrl === second.managementApi ? second : third;
  await until('the revoked refresh token refused', async () => {
    const answer = await survivor.http.post(`${survivor.origin}/oidc/oauth/token`, { rawBody: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: lastRefresh, client_id: 'openziti' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    return answer.status === 400;
  }, 10_000);
});

test('--legacy keeps a zt-session login on an OIDC controller', async () => {
  const node = nodes[1]!;
  const sessionFile = join(root, 'legacy-flag.json');
  const login = await ok(sessionFile, ['login', node.origin, '-u', adminCredentials.username, '-p', adminCredentials.password, '--ca', caFile, '--legacy']);
  assert.match(login.stdout, /\nSession saved in [^\n]+\n$/, 'no OIDC line');
  const stored = storedSession(sessionFile);
  assert.equal(stored.oidc, undefined);
  assert.equal(stored.token.split('.').length, 1, 'a legacy session token, not a JWT');
  await ok(sessionFile, ['list', 'identities']);
  await ok(sessionFile, ['logout']);
});

test('a controller without OIDC (edge.oidc.enabled: false) still gets the legacy login', async () => {
  legacyOnly = await ControllerFixture.create({ editConfig: (yaml) => yaml.replace(/^edge:\n/m, 'edge:\n  oidc:\n    enabled: false\n') });
  const legacyCa = join(root, 'legacy-ca.pem');
  writeFileSync(legacyCa, legacyOnly.caPem);
  const sessionFile = join(root, 'legacy-only.json');
  const login = await ok(sessionFile, ['login', legacyOnly.origin, '-u', adminCredentials.username, '-p', adminCredentials.password, '--ca', legacyCa]);
  assert.match(login.stdout, /\nSession saved in [^\n]+\n$/, 'no OIDC line');
  const stored = storedSession(sessionFile);
  assert.equal(stored.oidc, undefined);
  const listed = await ok(sessionFile, ['list', 'identities', '--json']);
  assert.ok(JSON.parse(listed.stdout).length > 0);
  await ok(sessionFile, ['logout']);
});
