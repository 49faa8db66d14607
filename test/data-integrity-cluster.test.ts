// The data-integrity check on a real two-controller cluster, as an operator meets it: references broken through the
// management API (deletes leave `@id` roles behind) and rows written into each stopped controller's ctrl.db past
// the applies (what a damaged store or copy holds) are listed by `POST /database/check-data-integrity` +
// `GET /database/data-integrity-results` and by `./edgeward agent controller check-integrity` (exit 1 while findings
// remain); `POST /database/fix-data-integrity` on the follower repairs the fixable ones through raft on EVERY
// controller, leaves the unsafe ones (an AllOf policy, a config of a missing type) reported, and once the operator
// deals with those a second check on each controller finds nothing (the agent command exits 0).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { initPki } from '../common/pki/pki-directory.ts';
import { createModelTables } from '../server/model/entities.ts';
import type { Row } from '../server/store/entity-table.ts';
import { ModelStore } from '../server/store/model-store.ts';
import { managementPoster } from './support/circuit-routers.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

const repo = join(import.meta.dirname, '..');
const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-integrity-pki-'));
const fixtures: ControllerFixture[] = [];
let ctrl1: ControllerFixture;
let ctrl2: ControllerFixture;
let admin: Record<string, string>;

before(async () => {
  await initPki(pkiRoot, { trustDomain: 'edgeward.test' });
  ctrl1 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl1' });
  fixtures.push(ctrl1);
  ctrl2 = await ControllerFixture.create({ pkiDir: pkiRoot, id: 'ctrl2', initAdmin: false });
  fixtures.push(ctrl2);
  await agent(ctrl1, 'cluster.add', { address: ctrl2.ctrlAddress, voter: true });
  await until('two connected voters', async () => (await memberList(ctrl1)).filter((row) => row.voter && row.connected).length === 2);
  admin = { 'zt-session': await ctrl1.adminToken() };
});
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

/** `./edgeward agent ...` as a shell runs it: its exit code and output (60 s at most). */
function edgewardAgent(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(join(repo, 'edgeward'), ['agent', ...args], { timeout: 60_000, killSignal: 'SIGKILL', encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

async function call(node: ControllerFixture, method: string, path: string, body?: Record<string, unknown>) {
  const response = await node.http.request(method, `${node.managementApi}${path}`, { headers: admin, ...(body ? { body } : {}) });
  assert.ok(response.status < 300, `${method} ${path} on ${node.id}: ${response.status} ${response.text}`);
  return response;
}

/** Starts a check (or a fixing run) on `node` and answers its finished report (30 s). */
async function checked(node: ControllerFixture, operation: 'check-data-integrity' | 'fix-data-integrity'): Promise<{ results: Array<{ description: string; fixed: boolean }>; error: string; fixingErrors: boolean }> {
  const startedAfter = new Date(Date.now() - 1).toISOString();
  assert.equal((await call(node, 'POST', `/database/${operation}`)).status, 202);
  return until(`the integrity run on ${node.id}`, async () => {
    const report = (await call(node, 'GET', '/database/data-integrity-results')).json.data;
    return !report.inProgress && report.startTime >= startedAfter ? report : undefined;
  }, 30_000);
}

const at = new Date().toISOString();
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });

/** Rows a damaged store holds: owners and types that do not exist. */
function damagedRows(serviceId: string): Array<[string, Row & Record<string, unknown>]> {
  const password = { algorithm: 'scrypt', hash: 'AA==', salt: 'AA==', N: 16384, r: 8, p: 1 };
  return [
    ['authenticators', { ...base('orphan-auth'), method: 'updb', identityId: 'ghost-identity', username: 'ghost-user', password }],
    ['enrollments', { ...base('orphan-enrollment'), method: 'ott', identityId: 'ghost-identity', token: 'ghost-token', jwt: 'x.y.z', expiresAt: '2099-01-01T00:00:00.000Z', username: null }],
    ['mfas', { ...base('orphan-mfa'), identityId: 'ghost-identity', isVerified: false, secret: { iv: '', tag: '', data: '' }, recoveryCodes: { iv: '', tag: '', data: '' }, recoveryCodeHashes: [], lastAcceptedStep: 0, failedAttempts: 0 }],
    ['terminatorSettings', { ...base('orphan-settings'), serviceId, routerId: 'ghost-router', cost: 10, precedence: 'default' }],
    ['configs', { ...base('typeless-config'), name: 'typeless', configTypeId: 'ghost-type', data: {} }],
  ];
}

/** Writes the rows into a stopped controller's ctrl.db, at its applied index (nothing for raft to replay). */
async function writeIntoStore(node: ControllerFixture, rows: Array<[string, Row]>): Promise<void> {
  const store = await ModelStore.open(join(node.dataDir, 'ctrl.db'), createModelTables());
  try {
    await store.applyBatch([{ index: store.appliedIndex() }], (_item, tx) => rows.forEach(([table, row]) => tx.put(table, row)));
    await store.flush();
  } finally {
    await store.close();
  }
}

test('the check lists broken references on each controller and through the agent; the fix repairs every controller', async () => {
  const post = managementPoster(ctrl1, admin);
  const before = await checked(ctrl2, 'check-data-integrity');
  assert.deepEqual(before.results, [], 'a new cluster is clean');

  // Broken through the API: deletes leave `@id` roles behind.
  const doomed = await post('/identities', { name: 'doomed', type: 'User', isAdmin: false });
  const doomedService = await post('/services', { name: 'doomed-svc', encryptionRequired: true });
  const service = await post('/services', { name: 'kept-svc', encryptionRequired: true });
  const router = await post('/edge-routers', { name: 'kept-router', roleAttributes: ['edge'], isTunnelerEnabled: false });
  const erp = await post('/edge-router-policies', { name: 'erp-doomed', semantic: 'AnyOf', identityRoles: [`@${doomed}`, '#integrity-users'], edgeRouterRoles: [`@${router}`] });
  const serp = await post('/service-edge-router-policies', { name: 'serp-doomed', semantic: 'AnyOf', serviceRoles: [`@${doomedService}`, `@${service}`], edgeRouterRoles: ['#all'] });
  const allOf = await post('/service-policies', { name: 'allof-doomed', type: 'Dial', semantic: 'AllOf', identityRoles: ['#ops', `@${doomed}`], serviceRoles: [`@${service}`] });
  await call(ctrl1, 'DELETE', `/identities/${doomed}`);
  await call(ctrl1, 'DELETE', `/services/${doomedService}`);
  await until('ctrl2 to apply the deletes', async () => (await ctrl2.http.request('GET', `${ctrl2.managementApi}/services/${doomedService}`, { headers: admin })).status === 404);

  // Broken past the applies: the same damaged rows in each stopped controller's store.
  await Promise.all([ctrl1.stop(), ctrl2.stop()]);
  for (const node of [ctrl1, ctrl2]) await writeIntoStore(node, damagedRows(service));
  await Promise.all([ctrl1.start(), ctrl2.start()]);
  admin = { 'zt-session': await until('a login after the restart', () => ctrl1.adminToken()) };

  const expected = [
    `service policy allof-doomed (${allOf}) names rows that do not exist: identityRoles @${doomed}; not fixed: the policy is AllOf, so dropping them would change what it selects (edit the policy)`,
    'authenticator orphan-auth (updb) belongs to identity ghost-identity, which does not exist',
    `edge router policy erp-doomed (${erp}) names rows that do not exist: identityRoles @${doomed}`,
    `service edge router policy serp-doomed (${serp}) names rows that do not exist: serviceRoles @${doomedService}`,
    'enrollment orphan-enrollment (ott) belongs to identity ghost-identity, which does not exist',
    'MFA enrollment orphan-mfa belongs to identity ghost-identity, which does not exist',
    'terminator settings orphan-settings name router ghost-router, which does not exist',
    'config typeless (typeless-config) is of config type ghost-type, which does not exist; not fixed: delete the config, or create it again under a type that exists',
  ];
  for (const node of [ctrl1, ctrl2]) {
    const found = await checked(node, 'check-data-integrity');
    assert.deepEqual(found.results, expected.map((description) => ({ description, fixed: false })), node.id);
  }

  // The agent command prints the same findings, exits 1, and integrity-results prints the report again.
  const cli = await edgewardAgent(['controller', 'check-integrity', '--socket', ctrl2.agentSocket]);
  assert.equal(cli.code, 1, cli.stderr);
  assert.match(cli.stdout, /^data integrity check from \S+ to \S+: 8 findings, 0 fixed, 8 not fixed\n/);
  for (const description of expected) assert.ok(cli.stdout.includes(`  not fixed  ${description}\n`), description);
  const noWait = await edgewardAgent(['controller', 'check-integrity', '--wait=false', '--socket', ctrl2.agentSocket]);
  assert.equal(noWait.code, 0, noWait.stderr);
  assert.match(noWait.stdout, /^started a data integrity check at \S+; read its report with \.\/edgeward agent controller integrity-results\n$/);
  const text = await until('the unwaited check to finish', async () => {
    const run = await edgewardAgent(['controller', 'integrity-results', '--socket', ctrl2.agentSocket]);
    return run.stdout.includes('is running') ? undefined : run;
  });
  assert.equal(text.code, 1);
  assert.match(text.stdout, /: 8 findings, 0 fixed, 8 not fixed\n/);
  const json = await edgewardAgent(['controller', 'integrity-results', '--json', '--socket', ctrl2.agentSocket]);
  assert.equal(json.code, 1, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).results.map((result: { description: string }) => result.description), expected);

  // The fixing run on the follower: every fixable finding is fixed on both controllers, through raft.
  const fixing = await checked(ctrl2, 'fix-data-integrity');
  assert.deepEqual(fixing.results.map((result) => result.fixed), [false, true, true, true, true, true, true, false]);
  assert.equal(fixing.error, '');
  for (const node of [ctrl1, ctrl2]) {
    const left = await until(`${node.id} to hold the fixes`, async () => {
      const report = await checked(node, 'check-data-integrity');
      return report.results.length === 2 ? report : undefined;
    });
    assert.deepEqual(left.results.map((result) => result.description), [expected[0], expected[7]], node.id);
    assert.deepEqual((await call(node, 'GET', `/edge-router-policies/${erp}`)).json.data.identityRoles, ['#integrity-users'], node.id);
    assert.deepEqual((await call(node, 'GET', `/service-edge-router-policies/${serp}`)).json.data.serviceRoles, [`@${service}`], node.id);
  }

  // What the check would not decide, the operator does; then nothing is left anywhere.
  await call(ctrl1, 'DELETE', `/service-policies/${allOf}`);
  await call(ctrl1, 'DELETE', '/configs/typeless-config');
  for (const node of [ctrl1, ctrl2]) {
    await until(`${node.id} to find nothing`, async () => (await checked(node, 'check-data-integrity')).results.length === 0);
  }
  const clean = await edgewardAgent(['controller', 'check-integrity', '--fix', '--socket', ctrl1.agentSocket]);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, /^data integrity check and fix from \S+ to \S+: no findings\n$/);
});
