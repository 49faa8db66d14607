// `./edgeward router enroll` and `./edgeward router run` as separate processes, against FAKE controllers
// (test/support/fake-controller.ts: real TLS and a real edgeward PKI, speaking the contract of
// common/control-channel/control-messages.ts), which let a test see every frame the router sends and kill a
// controller at will. The same router against real controllers: test/router-controller.test.ts (one) and
// test/router-cluster.test.ts (a cluster).
import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { SignJWT, decodeJwt } from 'jose';
import { parse } from 'yaml';
import { initPki } from '../common/pki/pki-directory.ts';
import { currentVersion } from '../common/version/version-info.ts';
import { FakeController } from './support/fake-controller.ts';
import { freePort } from './support/free-port.ts';
import { HttpsClient } from './support/https-client.ts';
import { RouterRun, runEdgeward } from './support/router-fixture.ts';

let dir: string;
let configFile: string;
let a: FakeController;
let b: FakeController;
let healthUrl: string;
let http: HttpsClient;
let linkPort: number;
let edgePort: number;
let router: RouterRun | undefined;

function routerYaml(ctrlAddress: string, ports: { edge: number; link: number; health: number }, withCsr = true): string {
  return `v: 3
identity:
  cert: pki/router.cert
  server_cert: pki/router.server.cert
  key: pki/router.key
  ca: pki/ca.pem
ctrl:
  endpoint: ${ctrlAddress}
  defaultRequestTimeout: 2s
  heartbeats:
    sendInterval: 1s
    checkInterval: 100ms
    closeUnresponsiveTimeout: 3s
${withCsr ? `edge:
  dbSaveIntervalSeconds: 1
  csr:
    country: US
    organization: edgeward-test
    sans:
      dns: [localhost]
      ip: [127.0.0.1]
listeners:
  - binding: edge
    address: tls:127.0.0.1:${ports.edge}
    options:
      advertise: 127.0.0.1:${ports.edge}
` : ''}link:
  listeners:
    - binding: transport
      bind: tls:127.0.0.1:${ports.link}
      advertise: tls:127.0.0.1:${ports.link}
      groups: [default, east]
dialers:
  - binding: transport
metrics:
  reportInterval: 200ms
  messageQueueSize: 5
  intervalAgeThreshold: 100ms
healthChecks:
  ctrlPingCheck: {interval: 200ms, timeout: 1s, initialDelay: 100ms}
  linkCheck: {interval: 200ms, initialDelay: 100ms, minLinks: 0}
trace:
  path: trace.jsonl
profile:
  cpu: {path: router.cpuprofile}
  memory: {path: memory.jsonl, intervalMs: 200}
web:
  - name: health
    bindPoints:
      - interface: 127.0.0.1:${ports.health}
        address: 127.0.0.1:${ports.health}
    apis:
      - binding: health-checks
`;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeward-router-run-'));
  const pkiDir = join(dir, 'controller-pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  a = await FakeController.start({ id: 'ctrl-a', pkiDir });
  b = await FakeController.start({ id: 'ctrl-b', pkiDir });
  a.options.members = [a.member, b.member];
  b.options.members = [a.member, b.member];
  const ports = { edge: await freePort(), link: await freePort(), health: await freePort() };
  linkPort = ports.link;
  edgePort = ports.edge;
  healthUrl = `https://127.0.0.1:${ports.health}/health-checks`;
  configFile = join(dir, 'router.yml');
  writeFileSync(configFile, routerYaml(a.ctrlAddress, ports));
  writeFileSync(join(dir, 'no-csr.yml'), routerYaml(a.ctrlAddress, ports, false));
  http = new HttpsClient(a.bundlePem);
});

after(async () => {
  await router?.stop();
  http?.close();
  await a?.kill();
  await b?.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function jwtFile(name: string, jwt: string): Promise<string> {
  const path = join(dir, name);
  writeFileSync(path, `${jwt}\n`);
  return path;
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('router process (fake controllers)', { timeout: 240_000 }, () => {
  it('refuses to run before enrollment, naming the missing files and pointing to router enroll', async () => {
    const result = await runEdgeward(['router', 'run', configFile]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /error: identity\.cert: file ".*pki\/router\.cert" does not exist/);
    assert.match(result.stderr, /enroll it first with \.\/edgeward router enroll .*router\.yml --jwt <jwt-file>/);
  });

  it('refuses to enroll without edge.csr, with an expired token, an identity token or a token the controller did not sign', async () => {
    const good = await a.createEnrollmentJwt('router-1');
    const noCsr = await runEdgeward(['router', 'enroll', join(dir, 'no-csr.yml'), '--jwt', await jwtFile('good.jwt', good)]);
    assert.equal(noCsr.code, 1);
    assert.match(noCsr.stderr, /has no edge\.csr section: the router cannot enroll without it/);

    const expired = await runEdgeward(['router', 'enroll', configFile, '--jwt', await jwtFile('expired.jwt', await a.createEnrollmentJwt('router-1', { expiresInSeconds: -10 }))]);
    assert.equal(expired.code, 1);
    assert.match(expired.stderr, /error: the enrollment token expired at /);

    const ott = await runEdgeward(['router', 'enroll', configFile, '--jwt', await jwtFile('ott.jwt', await a.createEnrollmentJwt('router-1', { method: 'ott' }))]);
    assert.equal(ott.code, 1);
    assert.match(ott.stderr, /not an edge router \(em must be "erott"\)/);

    const claims = decodeJwt(good);
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256' }).sign(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    const forgedResult = await runEdgeward(['router', 'enroll', configFile, '--jwt', await jwtFile('forged.jwt', forged)]);
    assert.equal(forgedResult.code, 1);
    assert.match(forgedResult.stderr, /was not signed by the controller at https:\/\/127\.0\.0\.1:\d+ .*refusing to trust it/);
    assert.equal(existsSync(join(dir, 'pki', 'router.cert')), false);
    assert.deepEqual(a.enrolled, []);
  });

  it('enrolls: generates the key (0600), writes cert, server cert, CA bundle and the endpoints file', async () => {
    const jwt = await a.createEnrollmentJwt('router-1', { ctrlAddresses: [a.ctrlAddress, b.ctrlAddress] });
    const file = await jwtFile('router-1.jwt', jwt);
    const result = await runEdgeward(['router', 'enroll', configFile, '--jwt', file]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^enrolled router router-1\n/);
    assert.deepEqual(a.enrolled, ['router-1']);

    assert.equal(statSync(join(dir, 'pki', 'router.key')).mode & 0o777, 0o600);
    assert.match(readFileSync(join(dir, 'pki', 'router.key'), 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    const cert = new X509Certificate(readFileSync(join(dir, 'pki', 'router.cert')));
    assert.match(cert.subject, /CN=router-1/);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    const serverCert = new X509Certificate(readFileSync(join(dir, 'pki', 'router.server.cert')));
    assert.match(serverCert.subjectAltName ?? '', /DNS:localhost/);
    assert.match(serverCert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    assert.equal(readFileSync(join(dir, 'pki', 'ca.pem'), 'utf8'), a.bundlePem);
    const endpoints = parse(readFileSync(join(dir, 'endpoints'), 'utf8')) as { endpoints: string[] };
    assert.deepEqual(endpoints.endpoints, [a.ctrlAddress, b.ctrlAddress]);
    assert.equal(statSync(join(dir, 'endpoints')).mode & 0o777, 0o600);

    const again = await runEdgeward(['router', 'enroll', configFile, '--jwt', file]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /the controller refused the enrollment \(HTTP 400\): INVALID_ENROLLMENT_TOKEN/);
  });

  it('connects: logs its listeners, says hello with its link and edge listeners and saves the cluster members to the endpoints file', async () => {
    router = RouterRun.start(configFile);
    await router.waitForLog((line) => line.msg === 'controller endpoints from the endpoints file', 30_000, 'endpoints read from the file');
    const hello = await a.waitFor((entry) => entry.message.type === 'router.hello', 30_000, 'hello');
    assert.deepEqual(hello.message, {
      type: 'router.hello',
      routerId: 'router-1',
      version: currentVersion().version,
      linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${linkPort}`, groups: ['default', 'east'] }],
      supportedProtocols: { tls: `tls://127.0.0.1:${edgePort}` },
      edgeModelDeltas: true,
      routeBatches: true,
      // No link dialers in this config: it is told only of routers that may dial its listener.
      routersChanged: true,
      linkDialerGroups: [],
    });
    const listener = router.lines.find((line) => line.msg === 'listener configured');
    assert.deepEqual(
      { binding: listener?.binding, bind: listener?.bind, advertise: listener?.advertise },
      { binding: 'edge', bind: `tls:127.0.0.1:${edgePort}`, advertise: `127.0.0.1:${edgePort}` },
    );
    assert.deepEqual(router.lines.filter((line) => line.msg === 'dialer configured').map((line) => line.binding), ['transport']);
    await router.waitForLog((line) => line.msg === 'control channel established', 10_000, 'welcome');
    const saved = await until(() => {
      const content = parse(readFileSync(join(dir, 'endpoints'), 'utf8')) as { controllers?: { id: string }[] };
      return content.controllers && content.controllers.length === 2 ? content : undefined;
    }, 'the endpoints file to list the members');
    assert.deepEqual(saved, {
      endpoints: [a.ctrlAddress, b.ctrlAddress],
      controllers: [
        { id: 'ctrl-a', endpoints: [{ address: a.ctrlAddress }] },
        { id: 'ctrl-b', endpoints: [{ address: b.ctrlAddress }] },
      ],
    });
  });

  it('serves its health checks over HTTPS with its server certificate: controllerPing and link.health, HTTP 200', async () => {
    const report = await until(async () => {
      const response = await http.get(healthUrl);
      const ping = response.json?.data?.checks?.find((check: { id: string }) => check.id === 'controllerPing');
      return response.status === 200 && ping?.healthy === true ? response.json : undefined;
    }, 'controllerPing to pass');
    assert.equal(report.data.healthy, true);
    const link = report.data.checks.find((check: { id: string }) => check.id === 'link.health');
    assert.equal(link.healthy, true);
    assert.deepEqual(link.details, []);
    assert.match(link.lastCheckTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(report.meta, {});
    const short = await http.get(`${healthUrl}?type=short`);
    assert.deepEqual(short.json.data.checks.map((check: object) => Object.keys(check).sort()), [['healthy', 'id'], ['healthy', 'id']]);
  });

  it('reports metrics every reportInterval with the link, latency and heap gauges', async () => {
    const metrics = await a.waitFor((entry) => entry.message.type === 'router.metrics' && 'ctrl.latency_ms' in entry.message.gauges, 15_000, 'metrics with the control latency');
    assert.equal(metrics.message.type, 'router.metrics');
    if (metrics.message.type !== 'router.metrics') return;
    assert.equal(metrics.message.routerId, 'router-1');
    assert.equal(metrics.message.gauges['link.count'], 0);
    assert.ok(metrics.message.gauges['process.heap_used_bytes']! > 0);
    const count = a.messages('router.metrics').length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(a.messages('router.metrics').length >= count + 3, 'about five metrics messages a second');
    // Each is held until intervalAgeThreshold (100ms) old, and sent within a check interval (10 ms) after that.
    const ages = a.received.filter((entry) => entry.message.type === 'router.metrics').map((entry) => entry.at - (entry.message as { timestamp: number }).timestamp);
    assert.ok(ages.every((age) => age >= 100), `every message at least 100 ms old when it arrived: ${ages.join(', ')}`);
  });

  it('keeps the newest edge model and saves it gzipped to edge.db', async () => {
    const model = { services: [{ id: 's1', name: 'web', roleAttributes: ['public'] }], identities: [] };
    a.send('router-1', { type: 'ctrl.edgeModel', index: 5, model });
    a.send('router-1', { type: 'ctrl.edgeModel', index: 4, model: { services: [], identities: [] } });
    const db = `${configFile}.proto.gzip`;
    const saved = await until(() => (existsSync(db) ? (JSON.parse(gunzipSync(readFileSync(db)).toString()) as { index: number; model: unknown }) : undefined), 'edge.db', 10_000);
    assert.equal(saved.index, 5);
    assert.deepEqual(saved.model, model);
  });

  it('applies edge model deltas, and asks for the whole model when a delta starts past the one it holds', async () => {
    const db = `${configFile}.proto.gzip`;
    const savedAt = async (index: number) =>
      until(() => {
        const saved = existsSync(db) ? (JSON.parse(gunzipSync(readFileSync(db)).toString()) as { index: number; model: { services: unknown[] } }) : undefined;
        return saved && saved.index === index ? saved : undefined;
      }, `edge.db at index ${index}`, 10_000);
    const web2 = { id: 's2', name: 'web2', roleAttributes: [] };
    a.send('router-1', { type: 'ctrl.edgeModelDelta', fromIndex: 5, index: 7, services: { upserted: [web2], deleted: ['s1'] } });
    assert.deepEqual((await savedAt(7)).model.services, [web2], 'the delta applied to the model held at index 5');
    const asked = a.messages('req').length;
    a.send('router-1', { type: 'ctrl.edgeModelDelta', fromIndex: 9, index: 11, services: { upserted: [], deleted: ['s2'] } });
    const request = await a.waitFor((entry) => entry.message.type === 'req' && (entry.message as { body: { op: string } }).body.op === 'edgeModel' && a.messages('req').length > asked, 10_000, 'a request for the whole model');
    const whole = { services: [{ id: 's3', name: 'web3', roleAttributes: ['x'] }] };
    a.send('router-1', { type: 'res', rid: (request.message as { rid: number }).rid, ok: true, value: { index: 12, model: whole } });
    assert.deepEqual((await savedAt(12)).model, whole, 'the whole model it asked for replaced the one it held');
  });

  it('fails over to the other controller when its controller dies', async () => {
    await a.kill();
    await router!.waitForLog((line) => line.msg === 'control channel lost', 10_000, 'the channel loss');
    await b.waitFor((entry) => entry.message.type === 'router.hello', 15_000, 'hello at ctrl-b');
    await b.waitFor((entry) => entry.message.type === 'router.metrics', 10_000, 'metrics at ctrl-b');
    const welcomed = await router!.waitForLog((line) => line.msg === 'control channel established' && line.controllerId === 'ctrl-b', 10_000, 'welcome from ctrl-b');
    assert.equal(welcomed.endpoint, b.ctrlAddress);
    // The first model after a welcome is taken whatever its index (a restored controller's may be older); later ones only when newer.
    const restored = { services: [{ id: 's9', name: 'restored', roleAttributes: [] }] };
    b.send('router-1', { type: 'ctrl.edgeModel', index: 3, model: restored });
    b.send('router-1', { type: 'ctrl.edgeModel', index: 2, model: { services: [] } });
    const db = `${configFile}.proto.gzip`;
    const saved = await until(() => {
      const current = existsSync(db) ? (JSON.parse(gunzipSync(readFileSync(db)).toString()) as { index: number; model: unknown }) : undefined;
      return current?.index === 3 ? current : undefined;
    }, 'edge.db at the welcome model', 10_000);
    assert.deepEqual(saved.model, restored);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((JSON.parse(gunzipSync(readFileSync(db)).toString()) as { index: number }).index, 3, 'an older model after it is ignored');
  });

  it('stops on SIGTERM, writing its CPU profile, memory profile and trace', async () => {
    const code = await router!.stop();
    assert.equal(code, 0);
    assert.ok(router!.lines.some((line) => line.msg === 'router stopped'));
    const profile = JSON.parse(readFileSync(join(dir, 'router.cpuprofile'), 'utf8')) as { nodes: unknown[]; startTime: number; endTime: number };
    assert.ok(profile.nodes.length > 0 && profile.endTime > profile.startTime);
    const memory = readFileSync(join(dir, 'memory.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { heap: { used_heap_size: number } });
    assert.ok(memory.length >= 2 && memory.every((sample) => sample.heap.used_heap_size > 0));
    const trace = readFileSync(join(dir, 'trace.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { direction: string; message: { type: string } });
    assert.ok(trace.some((line) => line.direction === 'send' && line.message.type === 'router.hello'));
    assert.ok(trace.some((line) => line.direction === 'recv' && line.message.type === 'ctrl.welcome'));
    assert.ok(trace.some((line) => line.direction === 'recv' && line.message.type === 'ctrl.edgeModel'));
    router = undefined;
  });

  it('on the next start, loads its edge db and dials the controllers from its endpoints file', async () => {
    const helloCount = b.messages('router.hello').length;
    router = RouterRun.start(configFile);
    const loaded = await router.waitForLog((line) => line.msg === 'edge db loaded', 30_000, 'the edge db to load');
    assert.equal(loaded.index, 3, 'the last model it held');
    const endpoints = await router.waitForLog((line) => line.msg === 'controller endpoints from the endpoints file', 10_000, 'the endpoints file');
    assert.deepEqual(endpoints.endpoints, [a.ctrlAddress, b.ctrlAddress]);
    await until(() => (b.messages('router.hello').length > helloCount ? true : undefined), 'hello at ctrl-b after ctrl-a fails');
    assert.equal(await router.stop(), 0);
    if (process.env.EDGEWARD_SHOW_ROUTER_LOG) console.log(router.stderr);
    router = undefined;
  });
});
