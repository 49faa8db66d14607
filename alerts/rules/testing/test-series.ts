// Input series for the promtool unit tests, as Prometheus would have scraped them: each sample list is written in
// promtool's expanding notation ('1x10 0+5x3 stale _x2'), and each series carries the job and target labels the
// scrape configuration gives (scrape-names.ts), so the tests exercise the rules' real label matching.
import { scrapeNames } from '../../prometheus/scrape-names.ts';
import type { InputSeries } from '../rule-model.ts';

/** A scraped value, a scrape that produced no sample, or the staleness marker a failed scrape writes. */
export type Sample = number | 'missing' | 'stale';

export const testCluster = 'demo';
export const testControllers = ['ctrl1', 'ctrl2', 'ctrl3'] as const;
export type TestControllerId = (typeof testControllers)[number];

const controllerInstances: Record<TestControllerId, string> = {
  ctrl1: '127.0.0.1:1280',
  ctrl2: '127.0.0.1:1281',
  ctrl3: '127.0.0.1:1282',
};
export const alertsDaemonInstance = '127.0.0.1:9105';

/** The labels Prometheus puts on every series scraped from a controller. */
export function controllerTarget(id: TestControllerId): Record<string, string> {
  return {
    job: scrapeNames.jobs.controller,
    instance: controllerInstances[id],
    [scrapeNames.labels.cluster]: testCluster,
    [scrapeNames.labels.controller]: id,
  };
}

/** The labels Prometheus puts on every series scraped from the alerts daemon. */
export function alertsDaemonTarget(): Record<string, string> {
  return { job: scrapeNames.jobs.alertsDaemon, instance: alertsDaemonInstance, [scrapeNames.labels.cluster]: testCluster };
}

/** `metric{a="1",b="2"}` with the labels in name order. */
export function seriesName(metric: string, labels: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((name) => `${name}="${labels[name]!.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  return `${metric}{${pairs.join(',')}}`;
}

export function series(metric: string, labels: Readonly<Record<string, string>>, samples: readonly Sample[]): InputSeries {
  return { series: seriesName(metric, labels), values: encodeSamples(samples) };
}

/** `count` samples of one value. */
export function repeat(value: Sample, count: number): Sample[] {
  return Array.from({ length: count }, () => value);
}

/** `count` samples from `start`, each `step` above the one before (a counter at a steady rate). */
export function ramp(start: number, step: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => start + step * index);
}

/** A target that went down: a staleness marker, then no samples. */
export function down(count: number): Sample[] {
  return count === 0 ? [] : ['stale', ...repeat('missing', count - 1)];
}

function formatNumber(value: number): string {
  const text = String(value);
  if (!Number.isFinite(value) || /e/i.test(text)) throw new Error(`sample ${text} cannot be written in promtool notation`);
  return text;
}

/**
 * promtool's expanding notation: `a+bxn` is a and n further values each b apart (n+1 in all), `axn` is a, n+1
 * times; `_xn` is n missing samples (n, not n+1); `stale` is a staleness marker.
 */
export function encodeSamples(samples: readonly Sample[]): string {
  const parts: string[] = [];
  let index = 0;
  while (index < samples.length) {
    const first = samples[index]!;
    if (first === 'stale') {
      parts.push('stale');
      index++;
      continue;
    }
    if (first === 'missing') {
      let end = index;
      while (end < samples.length && samples[end] === 'missing') end++;
      parts.push(end - index === 1 ? '_' : `_x${end - index}`);
      index = end;
      continue;
    }
    const next = samples[index + 1];
    const step = typeof next === 'number' ? next - first : undefined;
    let end = index + 1;
    if (step !== undefined) {
      while (end < samples.length && samples[end] === first + step * (end - index)) end++;
    }
    const extra = end - index - 1;
    // Two values that differ stand apart: the second may start a longer run of its own.
    if (extra === 0 || (extra === 1 && step !== 0)) {
      parts.push(formatNumber(first));
      index++;
    } else if (step === 0) {
      parts.push(`${formatNumber(first)}x${extra}`);
      index = end;
    } else {
      parts.push(`${formatNumber(first)}${step! > 0 ? '+' : '-'}${formatNumber(Math.abs(step!))}x${extra}`);
      index = end;
    }
  }
  return parts.join(' ');
}

/** The peer latency histogram's bucket boundaries, as the controller exposes them. */
export const peerLatencyBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

/**
 * The `_bucket` series of a histogram fed `perStep` observations between two samples, all of the latency
 * `latencies[i]` at sample i (`undefined`: none then, or 'down': the target is down and writes no sample).
 */
export function histogramBuckets(
  metric: string,
  labels: Readonly<Record<string, string>>,
  boundaries: readonly number[],
  latencies: readonly (number | undefined | 'down')[],
  perStep: number,
): InputSeries[] {
  return [...boundaries.map(String), '+Inf'].map((le, index) => {
    const bound = index < boundaries.length ? boundaries[index]! : Infinity;
    let count = 0;
    let wasDown = false;
    const samples: Sample[] = latencies.map((latency, step) => {
      if (latency === 'down') {
        // The process is gone; its counters start again from zero when it comes back.
        const sample: Sample = wasDown ? 'missing' : 'stale';
        wasDown = true;
        count = 0;
        return sample;
      }
      wasDown = false;
      if (step > 0 && latency !== undefined && latency <= bound) count += perStep;
      return count;
    });
    return series(`${metric}_bucket`, { ...labels, le }, samples);
  });
}
