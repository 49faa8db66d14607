import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import type { Observation } from '../core/evaluator/observations.ts';
import { ControllerPolls } from './controller-polls.ts';
import { DaemonMetrics } from './daemon-metrics.ts';
import type { RecordSink } from './record-sink.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-polls-'));

/** A self-signed certificate for 127.0.0.1, made with the openssl CLI: it is its own CA bundle. */
function selfSigned(name: string): { cert: string; key: string } {
  const cert = join(root, `${name}.cert.pem`);
  const key = join(root, `${name}.key.pem`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { stdio: 'ignore', timeout: 30_000 },
  );
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

const metricsText = `# TYPE edgeward_raft_is_leader gauge
edgeward_raft_is_leader 1
# TYPE edgeward_raft_voters gauge
edgeward_raft_voters 3
# TYPE edgeward_raft_voters_connected gauge
edgeward_raft_voters_connected 3
# TYPE edgeward_peer_latency_seconds histogram
edgeward_peer_latency_seconds_bucket{channel_id="ctrl2",le="+Inf"} 4
edgeward_peer_latency_seconds_sum{channel_id="ctrl2"} 0.004
edgeward_peer_latency_seconds_count{channel_id="ctrl2"} 4
`;

/** A controller's health and metrics over HTTPS; `health` is the status /health-checks/controller/raft answers. */
class FakeController {
  health = 200;
  hang = false;
  server: Server | undefined;
  port = 0;
  constructor(private readonly identity: { cert: string; key: string }) {}
  async start(): Promise<void> {
    this.server = createServer(this.identity, (req, res) => {
      if (this.hang) return;
      if (req.url === '/health-checks/controller/raft') {
        res.writeHead(this.health, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { raft: { isRaftEnabled: true, isLeader: this.health === 200 } } }));
      } else if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metricsText);
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
  url(path: string): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }
}

class Observations implements RecordSink {
  readonly seen: Observation[] = [];
  now = () => Date.now();
  observe = (observation: Observation) => void this.seen.push(observation);
  lines = () => undefined;
  matched = () => undefined;
  skipped = () => undefined;
  health(controller: string): (number | string)[] {
    return this.seen.flatMap((observation) => (observation.kind === 'health' && observation.controller === controller ? [observation.status] : []));
  }
}

let trusted: { cert: string; key: string };
let stranger: { cert: string; key: string };
const stops: (() => Promise<void>)[] = [];
before(() => {
  trusted = selfSigned('trusted');
  stranger = selfSigned('stranger');
});
after(async () => {
  for (const stop of stops) await stop();
  rmSync(root, { recursive: true, force: true });
});

async function pollsFor(controllers: FakeController[], timeouts = 300) {
  for (const controller of controllers) stops.push(() => controller.stop());
  const sink = new Observations();
  const metrics = new DaemonMetrics({ defaultMetrics: false });
  const polls = new ControllerPolls(
    controllers.map((controller, index) => ({ id: `ctrl${index + 1}`, healthUrl: controller.url('/health-checks/controller/raft'), metricsUrl: controller.url('/metrics'), preferredLeader: false })),
    { healthPollInterval: 100, healthPollTimeout: timeouts, metricsPollInterval: 100, metricsPollTimeout: timeouts },
    trusted.cert,
    { sink, metrics, logger: createMemoryLogger() },
  );
  stops.push(() => polls.stop());
  polls.start();
  return { sink, metrics, polls };
}

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('ControllerPolls', () => {
  it('reports each controller\'s health status over HTTPS verified with the CA bundle, and its parsed metrics', async () => {
    const leader = new FakeController(trusted);
    const follower = new FakeController(trusted);
    await leader.start();
    await follower.start();
    follower.health = 429;
    const { sink, metrics } = await pollsFor([leader, follower]);
    await until(() => sink.health('ctrl1').length >= 2 && sink.health('ctrl2').length >= 2, 'two health polls each');
    assert.equal(sink.health('ctrl1')[0], 200);
    assert.equal(sink.health('ctrl2')[0], 429);
    const view = sink.seen.find((observation) => observation.kind === 'metrics' && observation.controller === 'ctrl1');
    assert.deepEqual(view?.kind === 'metrics' ? view.view : undefined, { isLeader: true, voters: 3, votersConnected: 3, peerLatency: { ctrl2: { sum: 0.004, count: 4 } } });
    const text = await metrics.exposition();
    assert.match(text, /^edgeward_alerts_controller_raft_health_ok\{controller="ctrl1"\} 1$/m);
    assert.match(text, /^edgeward_alerts_controller_raft_health_ok\{controller="ctrl2"\} 0$/m);
    assert.match(text, /^edgeward_alerts_controller_reachable\{controller="ctrl2"\} 1$/m);
  });

  it('reports a controller that answers 503, does not answer in time, or presents a certificate outside the bundle', async () => {
    const failed = new FakeController(trusted);
    const silent = new FakeController(trusted);
    const impostor = new FakeController(stranger);
    await failed.start();
    await silent.start();
    await impostor.start();
    failed.health = 503;
    silent.hang = true;
    const { sink } = await pollsFor([failed, silent, impostor]);
    await until(() => sink.health('ctrl2').length >= 1 && sink.health('ctrl3').length >= 1 && sink.health('ctrl1').length >= 1, 'a poll of each');
    assert.equal(sink.health('ctrl1')[0], 503);
    assert.equal(sink.health('ctrl2')[0], 'unreachable');
    assert.equal(sink.health('ctrl3')[0], 'unreachable');
    const metricsOfImpostor = sink.seen.find((observation) => observation.kind === 'metrics' && observation.controller === 'ctrl3');
    assert.ok(metricsOfImpostor?.kind === 'metrics' && metricsOfImpostor.view === undefined, 'a failed metrics poll carries no view');
  });
});
