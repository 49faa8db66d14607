// The status page's admin login over OIDC, against a real three-controller cluster whose access tokens live 10 s:
// the page (the real `./edgeward dashboard run`) logs in with its configured credentials through the controllers'
// OIDC provider (no legacy API session is made for its identity), keeps reading the admin-only member list across
// several token lifetimes (refreshing before expiry), and when the controller of its login is SIGKILLed refreshes at
// another configured controller and keeps reading. An operator's own login to a page without configured credentials
// is an OIDC session too, kept refreshed while the page reads the member list with it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { dashboardConfigExample } from '../dashboard/config/dashboard-config-example.ts';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeAdmin } from './support/ext-jwt-support.ts';
import { freePort } from './support/free-port.ts';
import { EdgewardProcess } from './support/status-page-process.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-status-oidc-'));
const accessTokenSeconds = 10;
const pageUser = 'status-page';
const pagePassword = 'status-page-password';
let nodes: ControllerFixture[] = [];
let dashboard: EdgewardProcess | undefined;
let loginPage: EdgewardProcess | undefined;
let admin: EdgeAdmin;
let pageIdentityId = '';
let url = '';

before(
  async () => {
    nodes = await threeControllerCluster(join(root, 'pki'), {
      editConfig: (yaml) => yaml.replace(/^edge:\n/m, `edge:\n  oidc:\n    accessTokenDuration: ${accessTokenSeconds}s\n`),
    });
    admin = new EdgeAdmin(nodes[0]!, await until('an admin session', () => nodes[0]!.adminToken()));
    pageIdentityId = await admin.createIdentity(pageUser, { password: pagePassword, isAdmin: true });
    for (const node of nodes) await until(`${pageUser} on ${node.id}`, async () => (await node.http.get(`${node.managementApi}/identities/${pageIdentityId}`, { headers: admin.headers })).status === 200);
    const caFile = join(root, 'ca.pem');
    writeFileSync(caFile, nodes[0]!.caPem);
    const passwordFile = join(root, 'page-password');
    writeFileSync(passwordFile, `${pagePassword}\n`, { mode: 0o600 });
    const port = await freePort();
    const file = join(root, 'dashboard.yml');
    writeFileSync(
      file,
      dashboardConfigExample({
        listen: `127.0.0.1:${port}`,
        controllers: nodes.map((node) => ({ id: node.id, url: node.origin })),
        caBundle: caFile,
        credentials: { username: pageUser, passwordFile },
        pollInterval: '500ms',
        requestTimeout: '1500ms',
      }),
    );
    url = `http://127.0.0.1:${port}`;
    dashboard = new EdgewardProcess(['dashboard', 'run', file]);
    await dashboard.ready(`${url}/api/health`, 600_000);
  },
  { timeout: 900_000 },
);

after(async () => {
  await dashboard?.stop();
  await loginPage?.stop();
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

interface Members {
  readonly from?: string;
  readonly at?: number;
  readonly rows: readonly unknown[];
  readonly error?: string;
}

async function members(page = url, cookie?: string): Promise<Members> {
  const response = await fetch(`${page}/api/state`, cookie ? { headers: { cookie } } : {});
  assert.equal(response.status, 200);
  return ((await response.json()) as { snapshot: { members: Members } }).snapshot.members;
}

/** The dashboard's log lines with this message. */
const logLines = (msg: string, process = dashboard!) =>
  process.output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);

test('the status page logs in over OIDC, reads the member list past several token lifetimes, and refreshes at another controller when its own dies', { timeout: 300_000 }, async () => {
  const firstRead = await until('the member list read with the page credentials', async () => {
    const view = await members();
    return view.error === undefined && view.rows.length === 3 ? view : undefined;
  }, 60_000);
  assert.equal(firstRead.rows.length, 3);
  const [login] = logLines('logged in to the management API for the member list');
  assert.ok(login, dashboard!.output.slice(-3000));
  assert.equal(login.method, 'oidc');
  assert.equal(login.username, pageUser);
  // An OIDC login writes no API session: the controllers hold none for the page's identity.
  const sessions = await nodes[0]!.http.get(`${nodes[0]!.managementApi}/api-sessions?filter=${encodeURIComponent(`identityId = "${pageIdentityId}"`)}`, { headers: admin.headers });
  assert.equal(sessions.status, 200, sessions.text);
  assert.equal(sessions.json.meta.pagination.totalCount, 0, sessions.text);

  // Three token lifetimes: every read stays good, and no second login was needed (the refreshes did it).
  const deadline = Date.now() + 3 * accessTokenSeconds * 1000;
  let lastAt = firstRead.at ?? 0;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const view = await members();
    assert.equal(view.error, undefined, `the member list failed at ${new Date().toISOString()}: ${view.error}`);
    assert.ok((view.at ?? 0) >= lastAt);
    lastAt = view.at ?? 0;
  }
  assert.equal(logLines('logged in to the management API for the member list').length, 1, 'one login, then refreshes');
  assert.ok(lastAt > (firstRead.at ?? 0) + 2 * accessTokenSeconds * 1000, 'the list was read fresh well past the first token');

  // The controller of the login dies: the next refresh happens at another controller, and reading goes on.
  const origin = String(login.controller);
  const victim = nodes.find((node) => node.origin === origin)!;
  assert.ok(victim, origin);
  await victim.stop('SIGKILL');
  await until('the session moved to another controller', () => logLines('management API session moved to another controller').find((line) => line.from === origin), 3 * accessTokenSeconds * 1000);
  const killedAt = Date.now();
  await until('a fresh member list after the failover', async () => {
    const view = await members();
    return view.error === undefined && (view.at ?? 0) > killedAt ? view : undefined;
  }, 60_000);
  assert.equal(logLines('logged in to the management API for the member list').length, 1, 'the failover was a refresh, not a new login');
});

test('an operator who logs in to a page without configured credentials gets an OIDC session that the page keeps refreshed', { timeout: 300_000 }, async () => {
  const live = [];
  for (const node of nodes) if ((await node.http.get(`${node.origin}/version`).catch(() => undefined))?.status === 200) live.push(node);
  const caFile = join(root, 'ca.pem');
  const port = await freePort();
  const file = join(root, 'login-page.yml');
  writeFileSync(file, dashboardConfigExample({ listen: `127.0.0.1:${port}`, auth: 'required', controllers: live.map((node) => ({ id: node.id, url: node.origin })), caBundle: caFile, pollInterval: '500ms', requestTimeout: '1500ms' }));
  const page = `http://127.0.0.1:${port}`;
  loginPage = new EdgewardProcess(['dashboard', 'run', file]);
  await loginPage.ready(`${page}/api/health`, 600_000);
  const login = await fetch(`${page}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: page }, body: JSON.stringify({ username: pageUser, password: pagePassword }) });
  assert.equal(login.status, 200, await login.text());
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const first = await until('the member list read with the operator\'s session', async () => {
    const view = await members(page, cookie);
    return view.error === undefined && view.rows.length === 3 ? view : undefined;
  }, 60_000);
  // The operator's session is an OIDC one (no API session row for the identity), so reads past its 10 s token need refreshes.
  const liveAdmin = { 'zt-session': await live[0]!.adminToken() };
  const rows = await live[0]!.http.get(`${live[0]!.managementApi}/api-sessions?filter=${encodeURIComponent(`identityId = "${pageIdentityId}"`)}`, { headers: liveAdmin });
  assert.equal(rows.status, 200, rows.text);
  assert.equal(rows.json.meta.pagination.totalCount, 0, rows.text);
  // Two token lifetimes later the list is still read fresh with that session, refreshed by the page.
  await new Promise((resolve) => setTimeout(resolve, 2 * accessTokenSeconds * 1000 + 2000));
  const later = await until('a fresh member list past two token lifetimes', async () => {
    const view = await members(page, cookie);
    return view.error === undefined && (view.at ?? 0) > (first.at ?? 0) + 2 * accessTokenSeconds * 1000 ? view : undefined;
  }, 10_000);
  assert.equal(later.rows.length, 3);
  assert.equal(logLines('management API session refresh refused', loginPage).length, 0);
});
