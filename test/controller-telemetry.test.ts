// What a cluster's metrics and traces look like from outside: two real controller processes, each tracing to a
// stand-in OTLP/HTTP collector (one configured in ctrl.yml, the other through OTEL_EXPORTER_OTLP_ENDPOINT). After
// logins good and bad, writes and a wrong MFA code, every metric of the contract that alert rules and dashboards
// rely on is on /metrics with its type and labels, and promtool accepts the text; a write sent to the follower is
// one trace across both controllers.
import assert from 'node:assert/strict';
import { promtoolAccepts } from './support/prometheus-tools.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { controllerMetrics } from '../common/telemetry/metric-names.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.ts';
import { contractProblems, parseExposition } from './support/prometheus-text.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-telemetry-'));
let receiver: OtlpReceiver;
let leader: ControllerFixture;
let follower: ControllerFixture;

/** Heartbeats every second (not 10 s), so peer latency is measured within the test's time. */
const quickHeartbeats = (yaml: string) => yaml.replace('sendInterval: 10s', 'sendInterval: 1s');

before(async () => {
  receiver = await OtlpReceiver.start();
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  leader = await ControllerFixture.create({
    pkiDir,
    id: 'ctrl1',
    editConfig: (yaml) => `${quickHeartbeats(yaml)}\ntelemetry:\n  otlp:\n    endpoint: ${JSON.stringify(receiver.origin)}\n`,
  });
  follower = await ControllerFixture.create({ pkiDir, id: 'ctrl2', initAdmin: false, editConfig: quickHeartbeats, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin } });
  await agent(leader, 'cluster.add', { address: follower.ctrlAddress, voter: true });
  await until('two connected voters', async () => {
    const list = await memberList(leader);
    return list.length === 2 && list.every((row) => row.connected && row.voter) && list.find((row) => row.leader)?.id === 'ctrl1';
  });
});

after(async () => {
  await Promise.all([leader?.dispose(), follower?.dispose()]);
  await receiver?.close();
  rmSync(root, { recursive: true, force: true });
});

async function scrape(node: ControllerFixture): Promise<string> {
  const response = await node.http.get(`${node.origin}/metrics`);
  assert.equal(response.status, 200);
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return response.text;
}

/** Logins good and bad, a write, a wrong MFA code: what makes the counters and histograms have series. */
async function activity(node: ControllerFixture): Promise<void> {
  const refused = await node.http.post(`${node.clientApi}/authenticate?method=password`, { body: { username: adminCredentials.username, password: 'not-the-password' } });
  assert.equal(refused.status, 401);
  const token = await node.adminToken();
  const created = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': token }, body: { name: `metrics-${node.id}`, isAdmin: false } });
  assert.equal(created.status, 201, created.text);
  const client = await node.login(adminCredentials.username, adminCredentials.password, 'client');
  const headers = { 'zt-session': client };
  const enrollment = await node.http.post(`${node.clientApi}/current-identity/mfa`, { headers, body: {} });
  assert.ok(enrollment.status === 201 || enrollment.status === 409, enrollment.text);
  const wrong = await node.http.post(`${node.clientApi}/current-identity/mfa/verify`, { headers, body: { code: 'ABCDEFGH' } });
  assert.equal(wrong.status, 400, wrong.text);
}

test('every metric of the contract is on the leader\'s /metrics with its type and labels, and promtool accepts the text', async () => {
  await activity(leader);
  const text = await until('every contract metric on the leader', async () => {
    const scraped = await scrape(leader);
    return contractProblems(parseExposition(scraped), controllerMetrics).length === 0 ? scraped : undefined;
  }, 30_000).catch(async (error: Error) => {
    throw new Error(`${error.message}: ${contractProblems(parseExposition(await scrape(leader)), controllerMetrics).join('; ')}`);
  });
  const families = parseExposition(text);
  const value = (name: string, labels: Record<string, string> = {}) =>
    families.get(name)?.samples.find((sample) => Object.entries(labels).every(([key, expected]) => sample.labels[key] === expected))?.value;
  assert.ok((value('edgeward_authentications_total', { method: 'password', result: 'success' }) ?? 0) >= 2);
  assert.ok((value('edgeward_authentications_total', { method: 'password', result: 'failure' }) ?? 0) >= 1);
  assert.equal(value('edgeward_authentications_total', { method: 'ext-jwt', result: 'throttled' }), 0, 'every method and result starts at 0');
  assert.ok((value('edgeward_mfa_code_failures_total') ?? 0) >= 1);
  assert.equal(value('edgeward_raft_is_leader'), 1);
  assert.equal(value('edgeward_raft_leader_info', { leader_id: 'ctrl1' }), 1);
  assert.equal(value('edgeward_raft_voters'), 2);
  assert.equal(value('edgeward_raft_voters_connected'), 2);
  assert.equal(value('edgeward_peer_connects_total', { peer_id: 'ctrl2' }), 1);
  assert.equal(value('edgeward_peer_disconnects_total', { peer_id: 'ctrl2' }), 0);
  assert.ok((value('edgeward_raft_leadership_gained_total') ?? 0) >= 1);
  assert.ok((value('edgeward_raft_log_bytes') ?? 0) > 0, 'the write-ahead log takes room on disk');
  assert.ok((value('edgeward_http_requests_total', { api: 'edge-management', route: '/identities', method: 'POST', status: '201' }) ?? 0) >= 1);
  assert.ok(families.get('edgeward_http_requests_total')?.samples.every((sample) => !/[0-9a-f]{8,}|metrics-ctrl/.test(sample.labels.route ?? '')), 'routes are templates, never raw paths');
  assert.equal(value('target_info', { service_instance_id: 'ctrl1' }), 1);
  await promtoolAccepts(text);
});

test('the follower exposes the contract too, but for the limiter\'s work timer, which only a leader runs', async () => {
  await activity(follower);
  const { edgeward_raft_rate_limiter_work_timer_seconds: leaderOnly, ...everywhere } = controllerMetrics;
  assert.ok(leaderOnly);
  const text = await until('every contract metric on the follower', async () => {
    const scraped = await scrape(follower);
    return contractProblems(parseExposition(scraped), everywhere).length === 0 ? scraped : undefined;
  }, 30_000).catch(async (error: Error) => {
    throw new Error(`${error.message}: ${contractProblems(parseExposition(await scrape(follower)), everywhere).join('; ')}`);
  });
  const families = parseExposition(text);
  assert.deepEqual(families.get('edgeward_raft_is_leader')?.samples.map((sample) => sample.value), [0]);
  assert.deepEqual(families.get('edgeward_raft_leader_info')?.samples.map((sample) => sample.labels.leader_id), ['ctrl1']);
  assert.deepEqual(families.get('edgeward_raft_voters_connected')?.samples.map((sample) => sample.value), [2], 'itself and the leader');
  await promtoolAccepts(text);
});

test('a write sent to the follower is one trace across both controllers: request, forward, propose, commit, apply', async () => {
  const traceId = randomBytes(16).toString('hex');
  const token = await follower.adminToken();
  const created = await follower.http.post(`${follower.managementApi}/identities`, {
    headers: { 'zt-session': token, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    body: { name: 'traced-through-the-follower', isAdmin: false },
  });
  assert.equal(created.status, 201, created.text);
  const wanted = ['POST /edge/management/v1/identities', 'raft.forward', 'raft.follower_apply', 'raft.forward.serve', 'raft.propose', 'raft.commit', 'raft.apply'];
  const spans = await until(
    'the spans of the forwarded write at the collector',
    () => {
      const inTrace = receiver.spans().filter((span) => span.traceId === traceId);
      return wanted.every((name) => inTrace.some((span) => span.name === name)) ? inTrace : undefined;
    },
    20_000,
  );
  const one = (name: string): ReceivedSpan => {
    const matching = spans.filter((span) => span.name === name);
    assert.equal(matching.length, 1, `one ${name}: ${JSON.stringify(matching)}`);
    return matching[0]!;
  };
  const controllerOf = (span: ReceivedSpan) => span.resource['service.instance.id'];
  const http = one('POST /edge/management/v1/identities');
  const forward = one('raft.forward');
  const serve = one('raft.forward.serve');
  const propose = one('raft.propose');
  const commit = one('raft.commit');
  const apply = one('raft.apply');
  const followerApply = one('raft.follower_apply');
  for (const span of [http, forward, followerApply]) assert.equal(controllerOf(span), 'ctrl2', span.name);
  for (const span of [serve, propose, commit, apply]) assert.equal(controllerOf(span), 'ctrl1', span.name);
  assert.equal(http.kind, 2, 'server');
  assert.equal(forward.kind, 3, 'client');
  assert.equal(serve.kind, 2, 'server');
  assert.equal(forward.parentSpanId, http.spanId);
  assert.equal(serve.parentSpanId, forward.spanId, 'the leader continues the follower\'s span from the forwarded proposal');
  assert.equal(propose.parentSpanId, serve.spanId);
  assert.equal(commit.parentSpanId, propose.spanId);
  assert.equal(apply.parentSpanId, propose.spanId);
  assert.equal(http.attributes['http.route'], '/edge/management/v1/identities');
  assert.equal(http.attributes['http.response.status_code'], 201);
  assert.equal(apply.attributes['raft.index'], propose.attributes['raft.index']);
  assert.equal(followerApply.attributes['raft.index'], propose.attributes['raft.index']);
  assert.ok(receiver.requests.every((request) => request.path === '/v1/traces' && /json/.test(request.contentType)), 'only traces, as JSON');
});
