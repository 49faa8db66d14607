// Two controllers in one process, as tests run them: each keeps its own /metrics, and only the one handed a tracer
// provider traces; its write is one trace from the request through propose, commit and apply on its raft node.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { silentLogger } from '../../common/log/logger.ts';
import { systemClock } from '../../common/time/clock.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../common/pki/pki-directory.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import { freePort } from '../../test/support/free-port.ts';
import { HttpsClient } from '../../test/support/https-client.ts';
import { parseExposition } from '../../test/support/prometheus-text.ts';
import { startController, type RunningController } from './controller.ts';
import { defaultRaftOptions, type ControllerOptions } from './controller-options.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-inproc-telemetry-'));
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const running: RunningController[] = [];
let http: HttpsClient;
const origins: Record<string, string> = {};

async function options(id: string): Promise<ControllerOptions> {
  const pkiDir = join(root, 'pki');
  await issueControllerCertificate(pkiDir, { id, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const paths = controllerPaths(pkiDir, id);
  const tls = { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(pkiDir).bundle, 'utf8') };
  const port = await freePort();
  const ctrlPort = await freePort();
  origins[id] = `https://127.0.0.1:${port}`;
  return {
    id,
    dataDir: join(root, id),
    raft: defaultRaftOptions,
    cluster: {
      address: `tls:127.0.0.1:${ctrlPort}`,
      listen: { host: '127.0.0.1', port: ctrlPort },
      trustDomain: 'edgeward.test',
      preferredLeader: false,
      warnWhenLeaderlessForMs: 60_000,
      heartbeat: { sendIntervalMs: 10_000, checkIntervalMs: 1000, closeUnresponsiveTimeoutMs: 30_000 },
      tls,
    },
    webs: [{ name: 'api', bindPoints: [{ interfaceHost: '127.0.0.1', interfacePort: port, address: `127.0.0.1:${port}` }], apis: ['edge-client', 'edge-management', 'health-checks', 'metrics'], tls, maxBodyBytes: 1 << 20, idleTimeoutMs: 5000, readTimeoutMs: 5000, writeTimeoutMs: 100_000, requestTimeoutMs: 30_000, handshakeTimeoutMs: 10_000, maxConnections: 4096, minTlsVersion: 'TLSv1.2', maxTlsVersion: 'TLSv1.3' }],
    sessionTimeoutMs: 30 * 60_000,
    activityUpdateIntervalMs: 3_600_000,
    activityUpdateBatchSize: 250,
    events: [],
    agentSocket: join(root, `${id}.sock`),
  };
}

before(async () => {
  await initPki(join(root, 'pki'), { trustDomain: 'edgeward.test' });
  const runtime = { logger: silentLogger, clock: systemClock, version: currentVersion() };
  running.push(await startController(await options('traced'), { ...runtime, telemetry: { tracerProvider } }));
  running.push(await startController(await options('plain'), runtime));
  for (const controller of running) await controller.initialize({ username: 'admin', password: 'admin-password' });
  // Each controller publishes its OIDC signing key once its cluster takes writes: a write of its own, traced on the
  // traced one, that must be behind us before the tests count spans.
  for (const controller of running) {
    for (let waited = 0; !controller.services.oidc.tokens.ready; waited += 50) {
      if (waited > 20_000) throw new Error('no OIDC signing key published');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  http = new HttpsClient(readFileSync(pkiPaths(join(root, 'pki')).bundle, 'utf8'));
});

after(async () => {
  http?.close();
  for (const controller of running) await controller.close();
  await tracerProvider.shutdown();
  rmSync(root, { recursive: true, force: true });
});

async function createIdentity(id: string, name: string): Promise<void> {
  const login = await http.post(`${origins[id]}/edge/management/v1/authenticate?method=password`, { body: { username: 'admin', password: 'admin-password' } });
  const created = await http.post(`${origins[id]}/edge/management/v1/identities`, { headers: { 'zt-session': login.json.data.token }, body: { name, isAdmin: false } });
  assert.equal(created.status, 201, created.text);
}

test('each in-process controller keeps its own /metrics', async () => {
  await createIdentity('plain', 'only-on-plain');
  await createIdentity('plain', 'again-on-plain');
  const requests = async (id: string) => {
    const families = parseExposition((await http.get(`${origins[id]}/metrics`)).text);
    assert.equal(families.get('target_info')?.samples[0]?.labels.service_instance_id, id);
    return families.get('edgeward_http_requests_total')?.samples.find((sample) => sample.labels.route === '/identities' && sample.labels.status === '201')?.value ?? 0;
  };
  assert.equal(await requests('plain'), 2);
  assert.equal(await requests('traced'), 0);
});

test('only the controller given a tracer provider traces; its write is one trace down to the raft apply', async () => {
  exporter.reset();
  await createIdentity('plain', 'untraced');
  assert.deepEqual(exporter.getFinishedSpans(), [], 'the controller without a tracer provider made no spans');
  await http.get(`${origins.traced}/metrics`);
  await http.get(`${origins.traced}/health-checks`);
  assert.deepEqual(exporter.getFinishedSpans(), [], 'scrapes and health polls are not traced');
  await createIdentity('traced', 'traced');
  const spans = exporter.getFinishedSpans();
  const request = spans.find((span) => span.name === 'POST /edge/management/v1/identities');
  assert.ok(request, spans.map((span) => span.name).join(', '));
  assert.equal(request.kind, SpanKind.SERVER);
  const inTrace = spans.filter((span) => span.spanContext().traceId === request.spanContext().traceId);
  const propose = inTrace.find((span) => span.name === 'raft.propose' && span.attributes['raft.command'] === 'identity.create');
  assert.ok(propose, inTrace.map((span) => span.name).join(', '));
  assert.equal(propose.parentSpanContext?.spanId, request.spanContext().spanId);
  const proposeId = propose.spanContext().spanId;
  for (const name of ['raft.commit', 'raft.apply']) {
    const child: ReadableSpan | undefined = inTrace.find((span) => span.name === name && span.parentSpanContext?.spanId === proposeId);
    assert.ok(child, `${name} under raft.propose`);
    assert.equal(child.attributes['raft.index'], propose.attributes['raft.index']);
  }
});
