import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parsePrometheusText } from '../../alerts/core/metrics/prometheus-text.ts';
import { readControllerMetrics } from './controller-reading.ts';
import { histogramQuantile } from './histogram.ts';

// A real leader's /metrics (ctrl2 of a three-controller cluster, after ctrl1 had been frozen for a while).
const exposition = readFileSync(new URL('./testdata/controller-metrics.txt', import.meta.url), 'utf8');

test('a real controller\'s metrics: version, raft figures, the rate limiter, uptime and histograms', () => {
  const reading = readControllerMetrics(parsePrometheusText(exposition).samples);
  assert.equal(reading.version, 'v0.1.0');
  assert.equal(reading.isLeader, true);
  assert.equal(reading.leaderId, 'ctrl2');
  assert.equal(reading.readOnly, false);
  assert.equal(reading.term, 3);
  assert.equal(reading.commitIndex, 8);
  assert.equal(reading.appliedIndex, 8);
  assert.equal(reading.voters, 3);
  assert.equal(reading.limiterQueue, 0);
  assert.equal(reading.limiterWindow, 250);
  assert.ok(reading.startTimeSeconds! > 1.7e9);
  assert.equal(reading.workTimer?.count, 1);
  assert.deepEqual(Object.keys(reading.peerLatency).sort(), ['ctrl1', 'ctrl3']);
  const ctrl1 = reading.peerLatency.ctrl1!;
  assert.equal(ctrl1.count, 22);
  assert.equal(ctrl1.buckets.at(-1)![0], Number.POSITIVE_INFINITY);
  assert.ok(histogramQuantile(0.5, ctrl1)! < 0.0025, 'most heartbeats are quick');
  assert.deepEqual(reading.routers, {});
});

test('no leader, routers reporting, malformed lines skipped and missing metrics absent', () => {
  const text = [
    'edgeward_raft_has_leader 0',
    'edgeward_raft_is_leader 0',
    'edgeward_cluster_read_only 1',
    'this line is not a sample {',
    'edgeward_router_ctrl_connected{router_id="r1"} 1',
    'edgeward_router_ctrl_latency_seconds{router_id="r1"} 0.002',
    'edgeward_router_link_count{router_id="r1"} 1',
    'edgeward_router_link_latency_seconds{router_id="r1",link_id="l1"} 0.0005',
    'edgeward_router_link_latency_seconds{router_id="r1"} 0.9',
    'edgeward_raft_term NaN',
  ].join('\n');
  const parsed = parsePrometheusText(text);
  assert.equal(parsed.errors.length, 1);
  const reading = readControllerMetrics(parsed.samples);
  assert.equal(reading.leaderId, null);
  assert.equal(reading.readOnly, true);
  assert.equal(reading.term, undefined, 'NaN is no value');
  assert.equal(reading.version, undefined);
  assert.equal(reading.workTimer, undefined);
  assert.deepEqual(reading.routers, { r1: { ctrlConnected: true, ctrlLatencySeconds: 0.002, linkCount: 1, links: { l1: 0.0005 } } });
  assert.ok(!('appliedIndex' in reading), 'absent figures are left out, not undefined');
});

test('circuits: each router\'s circuit gauges, and the controller\'s circuit counters summed by cause and type', () => {
  const text = [
    'edgeward_router_circuit_count{router_id="r1"} 2',
    'edgeward_router_circuit_created{router_id="r1"} 40',
    'edgeward_router_circuit_failed{router_id="r1"} 3',
    'edgeward_router_circuit_dial_failures{router_id="r2"} 1',
    'edgeward_router_circuit_bytes_in{router_id="r1"} 52428800',
    'edgeward_router_circuit_bytes_out{router_id="r1"} 1024',
    'edgeward_circuit_failures_total{cause="NO_DIAL_POLICY",otel_scope_name="edgeward"} 2',
    'edgeward_circuit_failures_total{cause="NO_PATH",otel_scope_name="edgeward"} 0',
    'edgeward_circuit_events_total{event_type="created",otel_scope_name="edgeward"} 40',
    'edgeward_circuit_events_total{event_type="failed",otel_scope_name="edgeward"} 2',
  ].join('\n');
  const reading = readControllerMetrics(parsePrometheusText(text).samples);
  assert.deepEqual(reading.routers.r1?.circuits, { count: 2, created: 40, failed: 3, bytesIn: 52428800, bytesOut: 1024 });
  assert.deepEqual(reading.routers.r2?.circuits, { dialFailures: 1 });
  assert.deepEqual(reading.circuitFailures, { NO_DIAL_POLICY: 2, NO_PATH: 0 });
  assert.deepEqual(reading.circuitEvents, { created: 40, failed: 2 });
});

test('edge: each router\'s SDK channels and the virtual connections they hold', () => {
  const text = ['edgeward_router_edge_channel_count{router_id="r1"} 3', 'edgeward_router_edge_connection_count{router_id="r1"} 5', 'edgeward_router_edge_channel_count{router_id="r2"} 0'].join('\n');
  const reading = readControllerMetrics(parsePrometheusText(text).samples);
  assert.deepEqual(reading.routers.r1?.edge, { channels: 3, connections: 5 });
  assert.deepEqual(reading.routers.r2?.edge, { channels: 0 });
});
