import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controllerMetricsView } from './controller-metrics-view.ts';
import { parsePrometheusText, parseSampleLine } from './prometheus-text.ts';

// An exposition in the controller's shape (OpenTelemetry's Prometheus exporter): help, types, a histogram with
// buckets, labels with escapes, target_info.
const exposition = `# HELP target_info Target metadata
# TYPE target_info gauge
target_info{service_name="edgeward-controller",service_instance_id="ctrl1"} 1
# HELP edgeward_raft_is_leader 1 when this controller is the raft leader
# TYPE edgeward_raft_is_leader gauge
edgeward_raft_is_leader 1
# TYPE edgeward_raft_voters gauge
edgeward_raft_voters 3
# TYPE edgeward_raft_voters_connected gauge
edgeward_raft_voters_connected 2
# TYPE edgeward_raft_rate_limiter_queue_size gauge
edgeward_raft_rate_limiter_queue_size 0
# TYPE edgeward_raft_rate_limiter_window_size gauge
edgeward_raft_rate_limiter_window_size 250
# HELP edgeward_peer_latency_seconds Heartbeat round trip on a peer channel
# TYPE edgeward_peer_latency_seconds histogram
edgeward_peer_latency_seconds_bucket{channel_id="ctrl2",le="0.0001"} 0
edgeward_peer_latency_seconds_bucket{channel_id="ctrl2",le="+Inf"} 6
edgeward_peer_latency_seconds_sum{channel_id="ctrl2"} 0.009630981999989671
edgeward_peer_latency_seconds_count{channel_id="ctrl2"} 6
edgeward_peer_latency_seconds_bucket{channel_id="ctrl3",le="+Inf"} 2
edgeward_peer_latency_seconds_sum{channel_id="ctrl3"} 1.5e-3
edgeward_peer_latency_seconds_count{channel_id="ctrl3"} 2
# TYPE edgeward_build_info gauge
edgeward_build_info{version="v0.1.0 \\"rc\\"\\nnext",node_version="v20.20.2"} 1
`;

describe('parsePrometheusText', () => {
  it('reads samples, labels, types and help', () => {
    const parsed = parsePrometheusText(exposition);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.types.get('edgeward_peer_latency_seconds'), 'histogram');
    assert.equal(parsed.help.get('edgeward_raft_is_leader'), '1 when this controller is the raft leader');
    const bucket = parsed.samples.find((sample) => sample.name === 'edgeward_peer_latency_seconds_bucket' && sample.labels.le === '+Inf');
    assert.deepEqual(bucket, { name: 'edgeward_peer_latency_seconds_bucket', labels: { channel_id: 'ctrl2', le: '+Inf' }, value: 6 });
  });

  it('unescapes label values: backslash, double quote and newline', () => {
    const build = parsePrometheusText(exposition).samples.find((sample) => sample.name === 'edgeward_build_info');
    assert.equal(build?.labels.version, 'v0.1.0 "rc"\nnext');
  });

  it('reads special and exponent values, timestamps, spaces and a trailing comma', () => {
    assert.deepEqual(parseSampleLine('a_total{x="1",} 1e3 1700000000000'), { name: 'a_total', labels: { x: '1' }, value: 1000, timestamp: 1700000000000 });
    assert.deepEqual(parseSampleLine('  b { x = "y" }\t-Inf'), { name: 'b', labels: { x: 'y' }, value: Number.NEGATIVE_INFINITY });
    assert.ok(Number.isNaN((parseSampleLine('c NaN') as { value: number }).value));
    assert.ok(Number.isNaN((parseSampleLine('nodejs_eventloop_lag_mean_seconds Nan') as { value: number }).value), 'prom-client\'s spelling');
    assert.equal((parseSampleLine('h -inf') as { value: number }).value, Number.NEGATIVE_INFINITY);
    assert.equal((parseSampleLine('d +Inf') as { value: number }).value, Number.POSITIVE_INFINITY);
    assert.equal((parseSampleLine('e -0.5') as { value: number }).value, -0.5);
    assert.equal((parseSampleLine('f:g .5') as { value: number }).value, 0.5);
  });

  it('reports a malformed line with its number and keeps the rest', () => {
    const parsed = parsePrometheusText('ok 1\nbad{x="1" 2\nno_value\nx{a="\\q"} 1\ny{a="1",a="2"} 1\nz 1 2 3\nw abc\n# TYPE q nonsense\nlast 3\n');
    assert.deepEqual(
      parsed.samples.map((sample) => sample.name),
      ['ok', 'last'],
    );
    assert.deepEqual(
      parsed.errors.map((error) => error.line),
      [2, 3, 4, 5, 6, 7, 8],
    );
  });

  it('ignores comments and blank lines, and accepts CRLF line ends', () => {
    const parsed = parsePrometheusText('# just a comment\r\n\r\nup 1\r\n');
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.samples, [{ name: 'up', labels: {}, value: 1 }]);
  });
});

describe('controllerMetricsView', () => {
  it('takes leadership, quorum, the rate limiter and per-channel latency totals', () => {
    assert.deepEqual(controllerMetricsView(parsePrometheusText(exposition).samples), {
      isLeader: true,
      voters: 3,
      votersConnected: 2,
      queueSize: 0,
      windowSize: 250,
      peerLatency: { ctrl2: { sum: 0.009630981999989671, count: 6 }, ctrl3: { sum: 0.0015, count: 2 } },
    });
  });

  it('leaves out what the controller does not expose', () => {
    assert.deepEqual(controllerMetricsView(parsePrometheusText('edgeward_raft_has_leader 0\nedgeward_cluster_read_only 1\n').samples), {
      hasLeader: false,
      readOnly: true,
      peerLatency: {},
    });
  });
});
