// A jump in heartbeat round trips on one peer channel. Between two polls, the histogram's _sum and _count give the
// mean round trip of the heartbeats in that interval. The baseline is the median of recent normal intervals, so one
// odd interval does not move it, and it is not updated while the channel is high. An interval is high when its mean
// is `factor` times the baseline and `floor` above it; the warning needs high intervals for `sustainedFor` covering
// at least `minHeartbeats` heartbeats, so a single slow heartbeat never fires it.

import type { LatencyTotals } from '../metrics/controller-metrics-view.ts';
import type { ChannelLatency } from './evaluator-state.ts';
import { formatMs } from './rule-context.ts';
import type { RuleContext } from './rule-context.ts';

const minBaselineIntervals = 3;

export function evaluatePeerLatency(ctx: RuleContext, controller: string, channels: Readonly<Record<string, LatencyTotals>>): void {
  const known = (ctx.state.latency[controller] ??= {});
  for (const channel of Object.keys(known)) {
    if (Object.hasOwn(channels, channel)) continue;
    // The channel is gone (the peer disconnected): its history no longer describes anything.
    delete known[channel];
    ctx.book.resolve('EdgewardPeerLatencyJump', { controller, channel_id: channel }, ctx.now);
  }
  for (const [channel, totals] of Object.entries(channels)) {
    const entry = known[channel];
    if (!entry || totals.count < entry.count || totals.sum < entry.sum) {
      // First sight, or the controller restarted and its counters began again.
      known[channel] = { at: ctx.now, sum: totals.sum, count: totals.count, baseline: entry?.baseline ?? [], highCount: 0 };
      continue;
    }
    stepChannel(ctx, controller, channel, entry, totals);
  }
  if (Object.keys(known).length === 0) delete ctx.state.latency[controller];
}

function stepChannel(ctx: RuleContext, controller: string, channel: string, entry: ChannelLatency, totals: LatencyTotals): void {
  const heartbeats = totals.count - entry.count;
  if (heartbeats === 0) return;
  const mean = (totals.sum - entry.sum) / heartbeats;
  const settings = ctx.settings.rules.peerLatency;
  const baseline = entry.baseline.length >= minBaselineIntervals ? median(entry.baseline) : undefined;
  const high = baseline !== undefined && mean >= settings.factor * baseline && (mean - baseline) * 1000 >= settings.floor;
  const labels = { controller, channel_id: channel };
  if (high) {
    entry.highSince ??= entry.at;
    entry.highCount += heartbeats;
    if (ctx.now - entry.highSince >= settings.sustainedFor && entry.highCount >= settings.minHeartbeats) {
      ctx.book.fire(
        'EdgewardPeerLatencyJump',
        labels,
        ctx.now,
        `${controller}: heartbeats to ${channel} average ${formatMs(mean * 1000)} over the last interval against a baseline of ${formatMs(baseline * 1000)}.`,
        mean,
      );
    }
  } else {
    delete entry.highSince;
    entry.highCount = 0;
    ctx.book.resolve('EdgewardPeerLatencyJump', labels, ctx.now);
    entry.baseline.push(mean);
    if (entry.baseline.length > settings.baselineIntervals) entry.baseline.splice(0, entry.baseline.length - settings.baselineIntervals);
  }
  entry.at = ctx.now;
  entry.sum = totals.sum;
  entry.count = totals.count;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
