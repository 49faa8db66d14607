// With no OTLP endpoint configured a controller exports nothing and dials nothing, even with the environment set
// up the way NodeSDK's defaults would follow it (metrics and logs endpoints pointing at a live stand-in collector,
// short export intervals): a preload records every outbound connection the process attempts, to any address, the
// default localhost:4318 included. The same controller, given an endpoint, sends its traces and only its traces
// there, which shows the observation can see an export when there is one.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { OtlpReceiver } from './support/otlp-receiver.ts';

const connectLogPreload = new URL('./support/connect-log-preload.ts', import.meta.url).href;
const root = mkdtempSync(join(tmpdir(), 'edgeward-telemetry-off-'));
const connectLog = join(root, 'connects.jsonl');
let receiver: OtlpReceiver;
let controller: ControllerFixture;

before(async () => {
  receiver = await OtlpReceiver.start();
  writeFileSync(connectLog, '');
  controller = await ControllerFixture.create({
    id: 'ctrl-quiet',
    nodeArgs: ['--import', connectLogPreload],
    env: {
      EDGEWARD_CONNECT_LOG: connectLog,
      // What NodeSDK would export to, and how soon, if it were left to its OTEL_* defaults.
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${receiver.origin}/v1/metrics`,
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${receiver.origin}/v1/logs`,
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      OTEL_BLRP_SCHEDULE_DELAY: '200',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    },
  });
});

after(async () => {
  await controller?.dispose();
  await receiver?.close();
  rmSync(root, { recursive: true, force: true });
});

const attempted = () =>
  readFileSync(connectLog, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { host: string; port: number | null });

async function someRequests(): Promise<void> {
  const token = await controller.adminToken();
  const created = await controller.http.post(`${controller.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: `quiet-${Date.now()}`, isAdmin: false } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await controller.http.get(`${controller.origin}/metrics`)).status, 200);
}

test('with no endpoint nothing is exported and no connection is attempted', async () => {
  await someRequests();
  // Ten metric export intervals, and longer than any batch delay the variables ask for.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await someRequests();
  assert.deepEqual(attempted(), [], 'the controller dialled out');
  assert.equal(receiver.connections, 0);
  assert.deepEqual(receiver.requests, []);
});

test('given an endpoint, the same controller sends traces there, and nothing else', async () => {
  await controller.stop();
  appendFileSync(controller.configFile, `\ntelemetry:\n  otlp:\n    endpoint: ${JSON.stringify(receiver.origin)}\n    timeout: 2s\n`);
  await controller.start();
  await someRequests();
  await until('traces at the collector', () => receiver.spans().some((span) => span.name === 'POST /edge/management/v1/identities'), 20_000);
  assert.ok(attempted().some((target) => target.port === receiver.port), 'the preload saw the exporter dial the collector');
  assert.ok(attempted().every((target) => target.port === receiver.port), `only the collector is dialled: ${JSON.stringify(attempted())}`);
  assert.deepEqual([...new Set(receiver.requests.map((request) => request.path))], ['/v1/traces']);
});
