// A planned rolling restart of a three-controller cluster as Prometheus scrapes it, every 15 seconds for 24
// minutes: ctrl2, then ctrl3, then the leader ctrl1 go down for 30 seconds each, 5 minutes apart. The leader's
// restart causes one election (ctrl2 wins). A restarted process starts its counters and histograms from nothing,
// reports no leader at its first scrape and is 30 entries behind; followers that lose the leader see only
// themselves for a scrape. No alert may fire: the spec never pages on a single peer or leadership event.
import type { InputSeries } from '../rule-model.ts';
import {
  alertsDaemonTarget,
  controllerTarget,
  histogramBuckets,
  repeat,
  series,
  testControllers,
  type Sample,
  type TestControllerId,
} from './test-series.ts';

export const rollingRestartStepSeconds = 15;
export const rollingRestartSteps = 97;

const downSteps = 2;
const restarts: readonly { readonly id: TestControllerId; readonly at: number }[] = [
  { id: 'ctrl2', at: 16 },
  { id: 'ctrl3', at: 36 },
  { id: 'ctrl1', at: 56 },
];
const electionStep = 56;
const entriesPerStep = 20;
const heartbeatsPerStep = 4;
const latencyBuckets = [0.00025, 0.0005, 0.001];

const steps = Array.from({ length: rollingRestartSteps }, (_, step) => step);

function isDown(id: TestControllerId, step: number): boolean {
  return restarts.some((restart) => restart.id === id && step >= restart.at && step < restart.at + downSteps);
}

function isBackStep(id: TestControllerId, step: number): boolean {
  return restarts.some((restart) => restart.id === id && step === restart.at + downSteps);
}

function leaderAt(step: number): TestControllerId | undefined {
  if (step < electionStep) return 'ctrl1';
  return step === electionStep ? undefined : 'ctrl2';
}

/** The index the leader has applied: entries arrive at a steady rate, none while there is no leader. */
function clusterIndex(step: number): number {
  return 1000 + entriesPerStep * (step < electionStep ? step : step - 1);
}

/** A series of a controller: the value while it is up, the staleness marker and gaps while it is down. */
function whileUp(id: TestControllerId, value: (step: number) => Sample): Sample[] {
  return steps.map((step) => {
    if (!isDown(id, step)) return value(step);
    return isDown(id, step - 1) ? 'missing' : 'stale';
  });
}

function controllerSeriesOf(id: TestControllerId): InputSeries[] {
  const target = controllerTarget(id);
  const up = (step: number) => testControllers.filter((other) => !isDown(other, step)).length;
  const lostLeader = (step: number) => step === electionStep && id !== 'ctrl1';
  const list: InputSeries[] = [
    series('up', target, steps.map((step) => (isDown(id, step) ? 0 : 1))),
    series('edgeward_raft_voters', target, whileUp(id, () => 3)),
    series('edgeward_raft_has_leader', target, whileUp(id, (step) => (isBackStep(id, step) || lostLeader(step) ? 0 : 1))),
    series('edgeward_raft_is_leader', target, whileUp(id, (step) => (leaderAt(step) === id ? 1 : 0))),
    series('edgeward_raft_voters_connected', target, whileUp(id, (step) => (isBackStep(id, step) ? 2 : lostLeader(step) ? 1 : up(step)))),
    series('edgeward_raft_applied_index', target, whileUp(id, (step) => clusterIndex(step) - (isBackStep(id, step) ? 30 : 0))),
    series('edgeward_cluster_read_only', target, whileUp(id, () => 0)),
    series('edgeward_raft_rate_limiter_queue_size', target, whileUp(id, (step) => (leaderAt(step) === id && step % 9 === 4 ? 1 : 0))),
    series('edgeward_raft_rate_limiter_window_size', target, whileUp(id, () => 250)),
    series('edgeward_raft_log_bytes', target, whileUp(id, () => 24 * 1024 * 1024)),
    series('edgeward_raft_snapshot_timestamp_seconds', target, whileUp(id, (step) => Math.floor((step * rollingRestartStepSeconds) / 120) * 120)),
  ];

  // Counters live in the process: a restart starts them again, and a label set appears with its first increment.
  let gained: number | undefined;
  const disconnects = new Map<TestControllerId, number>();
  const gainedSamples: Sample[] = [];
  const peers = testControllers.filter((other) => other !== id);
  const disconnectSamples = new Map<TestControllerId, Sample[]>(peers.map((peer) => [peer, []]));
  for (const step of steps) {
    if (isDown(id, step)) {
      gained = undefined;
      disconnects.clear();
      const marker: Sample = isDown(id, step - 1) ? 'missing' : 'stale';
      gainedSamples.push(marker);
      for (const peer of peers) disconnectSamples.get(peer)!.push(marker);
      continue;
    }
    const leads = leaderAt(step) === id;
    if (leads && (step === 0 || leaderAt(step - 1) !== id)) gained = (gained ?? 0) + 1;
    gainedSamples.push(gained ?? 'missing');
    for (const peer of peers) {
      if (step > 0 && isDown(peer, step) && !isDown(peer, step - 1)) disconnects.set(peer, (disconnects.get(peer) ?? 0) + 1);
      disconnectSamples.get(peer)!.push(disconnects.get(peer) ?? 'missing');
    }
  }
  if (gainedSamples.some((sample) => typeof sample === 'number')) list.push(series('edgeward_raft_leadership_gained_total', target, gainedSamples));
  for (const peer of peers) {
    if (disconnectSamples.get(peer)!.some((sample) => typeof sample === 'number')) {
      list.push(series('edgeward_peer_disconnects_total', { ...target, peer_id: peer }, disconnectSamples.get(peer)!));
    }
    // A channel's histograms go with the channel: gone while either end is down, new when it opens again.
    const latencies = steps.map((step) => (isDown(id, step) || isDown(peer, step) ? ('down' as const) : 0.0004));
    list.push(...histogramBuckets('edgeward_peer_latency_seconds', { ...target, channel_id: peer }, latencyBuckets, latencies, heartbeatsPerStep));
  }
  return list;
}

/** Every series of the rolling restart: three controllers and the alerts daemon. */
export function rollingRestartSeries(): InputSeries[] {
  return [
    ...testControllers.flatMap(controllerSeriesOf),
    series('up', alertsDaemonTarget(), repeat(1, rollingRestartSteps)),
    series('edgeward_alerts_delivery_queue', alertsDaemonTarget(), repeat(0, rollingRestartSteps)),
    series('edgeward_alerts_deliveries_failed_total', alertsDaemonTarget(), repeat(0, rollingRestartSteps)),
  ];
}

/** The moments checked: while each controller is down, as it comes back, after it, and at the end. */
export const rollingRestartChecks = ['4m', '4m30s', '5m', '9m', '9m30s', '10m', '14m', '14m15s', '14m30s', '15m30s', '20m', '24m'] as const;
