// One chart point per gather, from the snapshot and the controllers' metric readings: commit lag (entries and
// seconds), the rate limiter's queue and window, the work timer's quantiles and each peer channel's heartbeat round
// trip (both over the last minute, as histogram_quantile over a rate would: nothing until a second reading, nothing
// while no observation fell in the window), and each router link's round trip. A controller that could not be read
// has no value in the point, so its line breaks off. Pure but for the histograms' recent readings, which it keeps.

import type { ControllerReading } from './controller-reading.ts';
import { HistogramWindow, histogramQuantile } from './histogram.ts';
import type { HistoryPoint, Snapshot } from './snapshot.ts';

export const chartIds = {
  lagEntries: 'commit-lag-entries',
  lagSeconds: 'commit-lag-seconds',
  limiterQueue: 'rate-limiter-queue',
  limiterWindow: 'rate-limiter-window',
  workTimer: 'work-timer',
  peerLatency: 'peer-latency',
  linkLatency: 'router-link-latency',
} as const;

export const workTimerQuantiles = [0.5, 0.9, 0.99] as const;
/** The peer latency chart's quantile. */
export const peerLatencyQuantile = 0.99;
/** Histogram quantiles are over this much time (heartbeats come every few seconds). */
export const histogramWindowMs = 60_000;

export class ChartSampler {
  private readonly window = new HistogramWindow(histogramWindowMs);

  point(snapshot: Snapshot, readings: ReadonlyMap<string, ControllerReading>): HistoryPoint {
    const t = snapshot.generatedAt;
    const values: Record<string, Record<string, number>> = {};
    const put = (chart: string, series: string, value: number | undefined) => {
      if (value === undefined || !Number.isFinite(value)) return;
      (values[chart] ??= {})[series] = value;
    };
    for (const controller of snapshot.controllers) {
      put(chartIds.lagEntries, controller.id, controller.lag?.entries);
      put(chartIds.lagSeconds, controller.id, controller.lag?.seconds);
      if (!controller.reachable) continue;
      put(chartIds.limiterQueue, controller.id, controller.rateLimiter?.queue);
      put(chartIds.limiterWindow, controller.id, controller.rateLimiter?.window);
      const reading = readings.get(controller.id);
      if (!reading) continue;
      if (reading.workTimer) {
        const recent = this.window.observe(`${controller.id}|work`, t, reading.workTimer);
        if (recent) for (const q of workTimerQuantiles) put(chartIds.workTimer, `${controller.id} p${q * 100}`, histogramQuantile(q, recent));
      }
      for (const [channel, histogram] of Object.entries(reading.peerLatency)) {
        const recent = this.window.observe(`${controller.id}|peer|${channel}`, t, histogram);
        if (recent) put(chartIds.peerLatency, `${controller.id} → ${channel}`, histogramQuantile(peerLatencyQuantile, recent));
      }
    }
    for (const router of snapshot.routers) {
      for (const link of router.links) put(chartIds.linkLatency, `${router.name ?? router.id} ${link.id}`, link.latencySeconds);
    }
    this.window.prune(t);
    return { t, values };
  }
}

