// The Node.js runtime of the controller process: event-loop delay, heap and resident memory, CPU time and garbage
// collection pauses. Scrape callbacks only read counters the runtime keeps; the event-loop delay comes from a timer
// that measures how late it fires, and GC pauses from the runtime's own performance entries.
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { Attributes, Histogram, Meter } from '@opentelemetry/api';

/** How often the event-loop delay is sampled: a timer this long is late by whatever blocked the loop meanwhile. */
const delaySampleMs = 100;

const delayBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const gcBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** GC kinds as Node reports them (PerformanceEntry detail.kind), as label values. */
const gcKinds = new Map<number, Attributes>([
  [constants.NODE_PERFORMANCE_GC_MINOR, { kind: 'minor' }],
  [constants.NODE_PERFORMANCE_GC_MAJOR, { kind: 'major' }],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, { kind: 'incremental' }],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, { kind: 'weakcb' }],
]);
const otherGc: Attributes = { kind: 'other' };

export class RuntimeMetrics {
  private readonly delay: Histogram;
  private readonly gcObserver: PerformanceObserver;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(meter: Meter) {
    this.delay = meter.createHistogram('nodejs.eventloop.delay.seconds', {
      description: `Event-loop delay in seconds: how late a ${delaySampleMs} ms timer fires, sampled every ${delaySampleMs} ms`,
      advice: { explicitBucketBoundaries: delayBuckets },
    });
    const gc = meter.createHistogram('nodejs.gc.duration.seconds', {
      description: 'Garbage collection pauses in seconds, by kind (minor, major, incremental, weakcb)',
      advice: { explicitBucketBoundaries: gcBuckets },
    });
    this.gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gc.record(entry.duration / 1000, gcKinds.get(gcKind(entry)) ?? otherGc);
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });

    const heapUsed = meter.createObservableGauge('nodejs.heap_used_bytes', { description: 'V8 heap in use, in bytes' });
    const heapTotal = meter.createObservableGauge('nodejs.heap_total_bytes', { description: 'V8 heap allocated, in bytes' });
    const resident = meter.createObservableGauge('process.resident_memory_bytes', { description: 'Resident set size of the controller process, in bytes' });
    meter.addBatchObservableCallback(
      (result) => {
        const memory = process.memoryUsage();
        result.observe(heapUsed, memory.heapUsed);
        result.observe(heapTotal, memory.heapTotal);
        result.observe(resident, memory.rss);
      },
      [heapUsed, heapTotal, resident],
    );
    // When this process started, so that a status page or a query (`time() - ...`) can show its uptime.
    const startedAt = performance.timeOrigin / 1000;
    meter
      .createObservableGauge('process.start_time_seconds', { description: 'Unix time the controller process started, in seconds' })
      .addCallback((result) => result.observe(startedAt));
    meter
      .createObservableCounter('process.cpu.seconds', { description: 'CPU time the controller process has used, user and system, in seconds' })
      .addCallback((result) => {
        const { user, system } = process.cpuUsage();
        result.observe((user + system) / 1e6);
      });
    this.sampleDelay();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.gcObserver.disconnect();
  }

  private sampleDelay(): void {
    if (this.closed) return;
    const scheduled = performance.now();
    this.timer = setTimeout(() => {
      this.delay.record(Math.max(0, performance.now() - scheduled - delaySampleMs) / 1000);
      this.sampleDelay();
    }, delaySampleMs);
    this.timer.unref();
  }
}

function gcKind(entry: PerformanceEntry): number {
  // Node 16+ puts the kind in `detail` (the types of this Node line do not declare it yet).
  return ((entry as { detail?: { kind?: number } }).detail?.kind) ?? -1;
}
