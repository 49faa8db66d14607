import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition, type Family } from '../../test/support/prometheus-text.ts';
import { ControllerMetrics, type ControllerMetricsSources, type RaftView } from './controller-metrics.ts';

function sources(overrides: Partial<ControllerMetricsSources> = {}): ControllerMetricsSources {
  return { controllerId: 'c1', version: 'v9.9.9', appliedIndex: () => 7, apiSessionCount: () => 0, isLeader: () => true, ...overrides };
}

const series = (family: Family | undefined) => (family?.samples ?? []).map((sample) => ({ ...sample.labels, value: sample.value }));

test('router gauges are exposed with router_id beside the controller metrics, and a series no longer observed goes away', async () => {
  const metrics = new ControllerMetrics(sources());
  try {
    let routers = [
      { value: 2, attributes: { router_id: 'r1' } },
      { value: 5, attributes: { router_id: 'r2' } },
    ];
    metrics.routerGauge('router.link.count', () => routers);
    metrics.routerGauge('router.link.count', () => [{ value: 99, attributes: { router_id: 'ignored' } }]);
    const first = await metrics.text();
    assert.match(first, /edgeward_raft_applied_index 7/);
    assert.match(first, /# TYPE edgeward_router_link_count gauge/);
    assert.match(first, /edgeward_router_link_count\{router_id="r1"\} 2/);
    assert.match(first, /edgeward_router_link_count\{router_id="r2"\} 5/);
    assert.doesNotMatch(first, /ignored/, 'a name is registered once');
    routers = [{ value: 3, attributes: { router_id: 'r1' } }];
    const second = await metrics.text();
    assert.match(second, /edgeward_router_link_count\{router_id="r1"\} 3/);
    assert.doesNotMatch(second, /router_id="r2"/, 'a dropped router leaves the exposition');
    assert.match(await metrics.text(), /edgeward_router_link_count\{router_id="r1"\} 3/, 'a value stays while observed');
  } finally {
    await metrics.close();
  }
});

test('a gauge of thousands of series exposes every one of them (the SDK folded those past 2,000 into an overflow series)', async () => {
  const metrics = new ControllerMetrics(sources());
  try {
    let count = 5000;
    metrics.routerGauge('router.link.count', () => Array.from({ length: count }, (_, i) => ({ value: i, attributes: { router_id: `r${i}` } })));
    metrics.transientGauge('service.terminators', 'Terminators of each service', () => Array.from({ length: 2500 }, (_, i) => ({ value: 1, attributes: { service_id: `s${i}`, binding: 'edge' } })));
    const families = parseExposition(await metrics.text());
    const links = series(families.get('edgeward_router_link_count'));
    assert.equal(links.length, 5000);
    assert.deepEqual(links.find((row) => (row as { router_id?: string }).router_id === 'r4999'), { router_id: 'r4999', value: 4999 });
    assert.equal(series(families.get('edgeward_service_terminators')).length, 2500);
    const text = await metrics.text();
    assert.doesNotMatch(text, /otel_metric_overflow/);
    assert.match(text, /# HELP edgeward_service_terminators Terminators of each service/);
    count = 10;
    assert.equal(series(parseExposition(await metrics.text()).get('edgeward_router_link_count')).length, 10, 'series not observed leave');
  } finally {
    await metrics.close();
  }
});

test('the leader series follows the leader: one at a time, none while there is no leader', async () => {
  let view: RaftView = { term: 3, commitIndex: 40, lastLogIndex: 41, leader: 'c2', voters: 3, votersConnected: 2 };
  const metrics = new ControllerMetrics(sources({ raft: () => view, isLeader: () => false }));
  try {
    let families = parseExposition(await metrics.text());
    assert.deepEqual(series(families.get('edgeward_raft_leader_info')), [{ leader_id: 'c2', value: 1 }]);
    assert.deepEqual(series(families.get('edgeward_raft_has_leader')), [{ value: 1 }]);
    assert.deepEqual(series(families.get('edgeward_raft_voters_connected')), [{ value: 2 }]);
    assert.deepEqual(series(families.get('edgeward_raft_commit_index')), [{ value: 40 }]);
    view = { ...view, term: 4, leader: 'c3' };
    families = parseExposition(await metrics.text());
    assert.deepEqual(series(families.get('edgeward_raft_leader_info')), [{ leader_id: 'c3', value: 1 }]);
    view = { ...view, leader: null };
    families = parseExposition(await metrics.text());
    assert.deepEqual(series(families.get('edgeward_raft_leader_info')), []);
    assert.deepEqual(series(families.get('edgeward_raft_has_leader')), [{ value: 0 }]);
  } finally {
    await metrics.close();
  }
});

test('counters alert rules take increase() of start at 0; recorded events count under their labels', async () => {
  const metrics = new ControllerMetrics(sources());
  try {
    let families = parseExposition(await metrics.text());
    const authentications = series(families.get('edgeward_authentications_total'));
    assert.equal(authentications.length, 9, 'three methods by three results');
    assert.ok(authentications.every((sample) => sample.value === 0));
    assert.deepEqual(series(families.get('edgeward_mfa_code_failures_total')), [{ value: 0 }]);
    assert.deepEqual(series(families.get('edgeward_raft_leadership_gained_total')), [{ value: 0 }]);
    assert.equal(families.get('edgeward_peer_connects_total'), undefined, 'no peer series before the configuration names one');

    metrics.authentication('password', 'failure');
    metrics.authentication('password', 'failure');
    metrics.authentication('cert', 'throttled');
    metrics.mfaCodeFailure();
    metrics.peerMember('c2');
    metrics.peerConnected('c2');
    metrics.leaderState({ isLeader: false, leader: 'c2' });
    metrics.leaderState({ isLeader: true, leader: 'c1' });
    metrics.recordRequest('edge-management', '/identities/:id', 'GET', 200, 0.002);
    metrics.recordRequest('edge-management', '/identities/:id', 'GET', 200, 0.003);
    metrics.recordRequest('root', undefined, 'GET', 404, 0.001);
    families = parseExposition(await metrics.text());
    const count = (name: string, labels: Record<string, string>, sampleName = name) =>
      families.get(name)?.samples.find((sample) => sample.name === sampleName && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
    assert.equal(count('edgeward_authentications_total', { method: 'password', result: 'failure' }), 2);
    assert.equal(count('edgeward_authentications_total', { method: 'cert', result: 'throttled' }), 1);
    assert.equal(count('edgeward_mfa_code_failures_total', {}), 1);
    assert.equal(count('edgeward_peer_connects_total', { peer_id: 'c2' }), 1);
    assert.equal(count('edgeward_peer_disconnects_total', { peer_id: 'c2' }), 0);
    assert.equal(count('edgeward_raft_leadership_gained_total', {}), 1);
    assert.equal(count('edgeward_raft_leader_changes_total', {}), 2);
    assert.equal(count('edgeward_http_requests_total', { api: 'edge-management', route: '/identities/:id', method: 'GET', status: '200' }), 2);
    assert.equal(count('edgeward_http_requests_total', { api: 'root', route: 'unmatched', status: '404' }), 1);
    assert.equal(count('edgeward_http_request_duration_seconds', { api: 'edge-management', status_class: '2xx' }, 'edgeward_http_request_duration_seconds_count'), 2, 'the duration histogram counts by API and class');
    assert.equal(count('edgeward_build_info', { version: 'v9.9.9', node_version: process.version }), 1);
  } finally {
    await metrics.close();
  }
});
