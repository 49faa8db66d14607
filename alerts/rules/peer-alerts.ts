// Warnings about the channels between controllers: one peer disconnecting again and again, and heartbeat round
// trips that jump above their own baseline. A single disconnect (a peer restarting) and a brief latency spike are
// normal and stay silent.
import { durationMs, durationSeconds, monitoringMixin, promDuration } from '../mixin/monitoring-mixin.ts';
import { inWords } from './promql-fragments.ts';
import { peerDisconnectsSeries, peerLatencyP99Series } from './recording-rules.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, histogramBuckets, peerLatencyBuckets, repeat, series, testCluster } from './testing/test-series.ts';

const { count: flapThreshold, window: flapWindow } = monitoringMixin.peerFlapping;
export const peerFlapping: AlertRule = {
  name: 'EdgewardPeerFlapping',
  expr: `round(${peerDisconnectsSeries}) >= ${flapThreshold}`,
  for: '1m',
  detail: ({ label, value }) =>
    `The channel from ${label('controller')} to peer ${label('peer_id')} (cluster ${label('cluster')}) closed ${value} times in the last ${inWords(flapWindow)}.`,
  rationale: `A peer that restarts closes its channels once; ${flapThreshold} closes of the same channel within ${inWords(flapWindow)} ("several in 10 min", the HA monitoring guidance) is flapping. The first close of a peer, which creates its counter, is counted.`,
  tests: [
    {
      name: 'EdgewardPeerFlapping fires when one peer channel closes three times in ten minutes',
      interval: '1m',
      series: [
        series('up', controllerTarget('ctrl1'), repeat(1, 21)),
        series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl2' }, repeat(1, 21)),
        series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl3' }, [...repeat('missing', 13), 1, 1, 2, 2, ...repeat(3, 4)]),
      ],
      checks: [
        { at: '16m', firing: [] },
        { at: '19m', firing: [{ labels: { cluster: testCluster, controller: 'ctrl1', peer_id: 'ctrl3' }, value: '3' }] },
      ],
    },
    {
      name: 'EdgewardPeerFlapping stays silent for a peer restart and one more close',
      interval: '1m',
      series: [
        series('up', controllerTarget('ctrl1'), repeat(1, 25)),
        series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl2' }, [...repeat(0, 12), ...repeat(1, 4), ...repeat(2, 9)]),
        series('edgeward_peer_disconnects_total', { ...controllerTarget('ctrl1'), peer_id: 'ctrl3' }, [...repeat('missing', 14), ...repeat(1, 11)]),
      ],
      checks: [
        { at: '17m', firing: [] },
        { at: '24m', firing: [] },
      ],
    },
  ],
};

const { factor: jumpFactor, floor, sustainedFor: slowFor, quantileWindow } = monitoringMixin.peerLatency;
const latencyFloorSeconds = durationSeconds(floor);
/** The p99 stays high for a quantile window after the round trips recover, so the rule holds that much longer. */
const latencyFor = promDuration(durationMs(slowFor) + durationMs(quantileWindow));

/** ctrl1's channel to ctrl2: 60 heartbeats a minute for 100 minutes, at `normal`, then at `jump` from `from` to `until`. */
function latencyHistory(normal: number, jump: number, from: number, until: number) {
  const latencies = Array.from({ length: 100 }, (_, minute) => (minute > from && minute <= until ? jump : normal));
  return histogramBuckets('edgeward_peer_latency_seconds', { ...controllerTarget('ctrl1'), channel_id: 'ctrl2' }, peerLatencyBuckets, latencies, 60);
}

export const peerLatencyJump: AlertRule = {
  name: 'EdgewardPeerLatencyJump',
  expr: [
    `${peerLatencyP99Series} > ${latencyFloorSeconds}`,
    'and',
    `${peerLatencyP99Series} > ${jumpFactor} * avg_over_time(${peerLatencyP99Series}[1h] offset 15m)`,
  ].join('\n'),
  for: latencyFor,
  valueFormat: 'humanizeDuration',
  detail: ({ label, value }) =>
    `The p99 heartbeat round trip from ${label('controller')} to ${label('channel_id')} (cluster ${label('cluster')}) is ${value}, over ${jumpFactor} times its average of the hour before, for more than ${latencyFor}.`,
  rationale: `The channel's ${inWords(quantileWindow).replace(' minutes', '-minute')} p99 against its own average over the hour that ended 15 minutes ago (so the jump is not yet part of its baseline), at least ${jumpFactor} times higher and above ${latencyFloorSeconds * 1000} ms, so that a jump from 0.1 ms to 0.5 ms on a LAN is not an alert. A p99 over ${inWords(quantileWindow)} stays high for ${inWords(quantileWindow)} after a few seconds of slow heartbeats; ${latencyFor} means the round trips stayed slow for about ${inWords(slowFor)}.`,
  tests: [
    {
      name: 'EdgewardPeerLatencyJump fires when round trips jump from 0.5 ms to 250 ms and stay there',
      interval: '1m',
      series: latencyHistory(0.0005, 0.25, 80, 100),
      checks: [
        { at: '89m', firing: [] },
        { at: '92m', firing: [{ labels: { cluster: testCluster, controller: 'ctrl1', channel_id: 'ctrl2' }, value: '248.5ms' }] },
      ],
    },
    {
      name: 'EdgewardPeerLatencyJump stays silent for a two-minute spike',
      interval: '1m',
      series: latencyHistory(0.0005, 0.25, 80, 82),
      checks: [
        { at: '88m', firing: [] },
        { at: '92m', firing: [] },
      ],
    },
    {
      name: 'EdgewardPeerLatencyJump stays silent for a fivefold jump that stays under 10 ms',
      interval: '1m',
      series: latencyHistory(0.0005, 0.0025, 80, 100),
      checks: [{ at: '92m', firing: [] }],
    },
  ],
};
