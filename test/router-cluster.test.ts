// Routers against a real three-controller cluster, as an operator runs them: edge routers created through the
// management API, `./edgeward router enroll` with their JWTs, `./edgeward router run`. Routers sharing a link group
// link up (a third, in another group, does not), each saves the cluster's members to its endpoints file, survives
// the SIGKILL of its controller by moving to another, keeps reporting metrics there, saves its edge db and loads it
// again at the next start, and is dialled again at once when it comes back.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { threeControllerCluster, until, withRaftThread } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { HttpsClient } from './support/https-client.ts';
import { RouterRun, runEdgeward } from './support/router-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-router-cluster-'));
const pkiRoot = join(root, 'pki');
let nodes: ControllerFixture[] = [];
let http: HttpsClient;

interface TestRouter {
  readonly name: string;
  readonly dir: string;
  readonly config: string;
  readonly health: string;
  id: string;
  run?: RouterRun;
}
const routers = new Map<string, TestRouter>();

before(async () => {
  // ctrl2 and ctrl3 run raft and the control port on a thread of their own (cluster.raftThread): routers reach
  // them through the relayed connections, and the cluster mixes both modes.
  nodes = await threeControllerCluster(pkiRoot, { editConfig: (yaml, id) => (id === 'ctrl1' ? yaml : withRaftThread(yaml)) });
  const [first] = nodes as [ControllerFixture];
  http = new HttpsClient(first.caPem);
});

after(async () => {
  await Promise.all([...routers.values()].map((router) => router.run?.stop()));
  http?.close();
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

async function writeRouter(name: string, groups: string[]): Promise<TestRouter> {
  const dir = join(root, name);
  const [healthPort, linkPort, edgePort] = [await freePort(), await freePort(), await freePort()];
  const config = join(dir, 'router.yml');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    config,
    `v: 3
identity:
  cert: router.cert
  server_cert: router.server.cert
  key: router.key
  ca: ca.pem
ctrl:
  endpoint: ${nodes[0]!.ctrlAddress}
  heartbeats: {sendInterval: 1s, checkInterval: 200ms, closeUnresponsiveTimeout: 4s}
edge:
  dbSaveIntervalSeconds: 1
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
listeners:
  - binding: edge
    address: tls:127.0.0.1:${edgePort}
    options: {advertise: 127.0.0.1:${edgePort}}
dialers:
  - binding: transport
link:
  listeners:
    - binding: transport
      bind: tls:127.0.0.1:${linkPort}
      advertise: tls:127.0.0.1:${linkPort}
      groups: [${groups.join(', ')}]
  dialers:
    - binding: transport
      groups: [${groups.join(', ')}]
      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}
      unhealthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 1m, maxRetryInterval: 5m}
metrics:
  reportInterval: 500ms
  intervalAgeThreshold: 200ms
healthChecks:
  ctrlPingCheck: {interval: 300ms, timeout: 2s, initialDelay: 100ms}
  linkCheck: {minLinks: ${groups.includes('blue') ? 1 : 0}, interval: 300ms, initialDelay: 100ms}
web:
  - name: health
    bindPoints: [{interface: 127.0.0.1:${healthPort}, address: 127.0.0.1:${healthPort}}]
    apis: [{binding: health-checks}]
`,
  );
  const router: TestRouter = { name, dir, config, health: `https://127.0.0.1:${healthPort}/health-checks`, id: '' };
  routers.set(name, router);
  return router;
}

const healthOf = async (router: TestRouter) => (await http.get(router.health)).json?.data as { healthy: boolean; checks: Array<{ id: string; healthy: boolean; details?: Array<{ destRouterId: string }> }> } | undefined;
const linkedTo = async (router: TestRouter) => ((await healthOf(router))?.checks.find((check) => check.id === 'link.health')?.details ?? []).map((link) => link.destRouterId);

test('edge routers are created, enrolled with their JWTs and connected; routers sharing a group link up', async () => {
  const [first] = nodes as [ControllerFixture];
  const admin = { 'zt-session': await first.adminToken() };
  for (const [name, groups] of [['router-a', ['blue']], ['router-b', ['blue']], ['router-c', ['red']]] as const) {
    const router = await writeRouter(name, [...groups]);
    const created = await first.http.post(`${first.managementApi}/edge-routers`, { headers: admin, body: { name } });
    assert.equal(created.status, 201, created.text);
    router.id = created.json.data.id;
    const detail = await first.http.get(`${first.managementApi}/edge-routers/${router.id}`, { headers: admin });
    writeFileSync(join(router.dir, 'enroll.jwt'), detail.json.data.enrollmentJwt);
    const enrolled = await runEdgeward(['router', 'enroll', router.config, '--jwt', join(router.dir, 'enroll.jwt')]);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    // The endpoints file holds every member of the cluster, though the config names only ctrl1.
    const endpoints = parse(readFileSync(join(router.dir, 'endpoints'), 'utf8')) as { endpoints: string[] };
    assert.deepEqual([...endpoints.endpoints].sort(), nodes.map((node) => node.ctrlAddress).sort());
  }
  for (const router of routers.values()) router.run = RouterRun.start(router.config);
  const [a, b, c] = [routers.get('router-a')!, routers.get('router-b')!, routers.get('router-c')!];
  await until('router-a and router-b linked', async () => (await linkedTo(a)).includes(b.id) && (await linkedTo(b)).includes(a.id));
  for (const router of [a, b, c]) {
    const health = await until(`${router.name} healthy`, async () => {
      const report = await healthOf(router);
      return report?.healthy ? report : undefined;
    });
    assert.ok(health.checks.find((check) => check.id === 'controllerPing')?.healthy);
  }
  assert.deepEqual(await linkedTo(c), [], 'router-c shares no group with the others');
  assert.ok(!(await linkedTo(a)).includes(c.id));
  for (const node of nodes) {
    const token = await until(`an admin session on ${node.id}`, () => node.adminToken());
    const list = await node.http.get(`${node.managementApi}/edge-routers`, { headers: { 'zt-session': token } });
    assert.ok(list.json.data.every((row: { isOnline: boolean }) => row.isOnline), `every router online on ${node.id}`);
  }
});

test('a router whose controller is killed moves to another controller, reports metrics there, and stays linked', async () => {
  const a = routers.get('router-a')!;
  const welcome = await a.run!.waitForLog((line) => line.msg === 'control channel established', 10_000, 'the first welcome');
  const controllerId = welcome.controllerId as string;
  const victim = nodes.find((node) => node.id === controllerId)!;
  const survivors = nodes.filter((node) => node !== victim);
  victim.child!.kill('SIGKILL');
  const moved = await a.run!.waitForLog((line) => line.msg === 'control channel established' && line.controllerId !== controllerId, 30_000, 'a welcome from another controller');
  assert.ok(survivors.some((node) => node.id === moved.controllerId));
  const survivor = survivors.find((node) => node.id === moved.controllerId)!;
  await until('router-a metrics on the new controller', async () => {
    const metrics = await survivor.http.get(`${survivor.origin}/metrics`);
    // Its own metrics report, not the series the controller sets at the welcome.
    return metrics.text.includes(`edgeward_router_link_count{router_id="${a.id}"}`);
  });
  await until('router-a healthy again', async () => (await healthOf(a))?.healthy === true);
  assert.ok((await linkedTo(a)).includes(routers.get('router-b')!.id), 'links survive the controller change');
  await victim.start();
});

test('the edge db is saved and loaded at the next start; a router that comes back is dialled again at once', async () => {
  const [a, b] = [routers.get('router-a')!, routers.get('router-b')!];
  const db = `${b.config}.proto.gzip`;
  await until('router-b saves its edge db', () => existsSync(db));
  assert.equal(await b.run!.stop(), 0);
  await until('router-a sees the link to router-b go', async () => !(await linkedTo(a)).includes(b.id));
  // router-b is not connected now, so router-a would wait a whole minute (unhealthy policy) before dialling again;
  // when router-b connects, the controller tells router-a, which dials at once on the healthy policy.
  const aLinesBefore = a.run!.lines.length;
  b.run = RouterRun.start(b.config);
  const loaded = await b.run.waitForLog((line) => line.msg === 'edge db loaded', 30_000, 'the edge db loaded at start');
  assert.equal(loaded.path, db);
  await b.run.waitForLog((line) => line.msg === 'control channel established', 30_000, 'router-b back on the control channel');
  const started = Date.now();
  try {
    await until('router-a linked to router-b again, by its own dial', async () => (await linkedTo(a)).includes(b.id) && a.run!.lines.slice(aLinesBefore).some((line) => line.msg === 'link established' && line.destRouterId === b.id && line.direction === 'dialed'), 20_000);
  } catch (error) {
    const dump = (lines: unknown[]) => lines.map((line) => JSON.stringify(line)).join('\n');
    throw new Error(`${(error as Error).message}\nrouter-a since b stopped:\n${dump(a.run!.lines.slice(aLinesBefore))}\nrouter-b:\n${dump(b.run.lines)}\n${nodes.map((node) => `--- ${node.id}\n` + node.readLog().split('\n').filter((l) => /router|peer/i.test(l)).slice(-40).join('\n')).join('\n')}`);
  }
  // router-a itself dialled (router-b dials router-a too, as it learns of it in its welcome; both links are kept).
  const dialled = a.run!.lines.slice(aLinesBefore).find((line) => line.msg === 'link established' && line.destRouterId === b.id && line.direction === 'dialed');
  assert.ok(dialled, 'router-a dialled router-b');
  assert.ok(Date.now() - started < 15_000, "well inside the unhealthy policy's one minute");
});
