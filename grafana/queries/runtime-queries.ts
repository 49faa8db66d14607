// The Node.js runtime of each controller: event-loop delay, memory, CPU and garbage collection.
import { defineQueries } from './catalogue-query.ts';
import { histogramQuantile, rateWindow, selectedControllers } from './promql-selectors.ts';

const picked = selectedControllers();

const eventLoopDelay = (quantile: number) => ({
  title: `Event-loop delay, p${quantile * 100}`,
  expr: histogramQuantile(quantile, 'edgeward_nodejs_eventloop_delay_seconds', ['controller'], picked),
  legend: `{{controller}} p${quantile * 100}`,
  unit: 's' as const,
  metrics: ['edgeward_nodejs_eventloop_delay_seconds' as const],
  seriesWhen: 'always' as const,
});

export const runtimeQueries = defineQueries('runtime', {
  eventLoopDelayP50: eventLoopDelay(0.5),
  eventLoopDelayP99: eventLoopDelay(0.99),
  heapUsed: {
    title: 'V8 heap in use',
    expr: `max by (controller) (edgeward_nodejs_heap_used_bytes${picked})`,
    legend: '{{controller}} used',
    unit: 'bytes',
    metrics: ['edgeward_nodejs_heap_used_bytes'],
    seriesWhen: 'always',
  },
  heapTotal: {
    title: 'V8 heap allocated',
    expr: `max by (controller) (edgeward_nodejs_heap_total_bytes${picked})`,
    legend: '{{controller}} allocated',
    unit: 'bytes',
    metrics: ['edgeward_nodejs_heap_total_bytes'],
    seriesWhen: 'always',
  },
  residentMemory: {
    title: 'Resident memory',
    expr: `max by (controller) (edgeward_process_resident_memory_bytes${picked})`,
    legend: '{{controller}}',
    unit: 'bytes',
    metrics: ['edgeward_process_resident_memory_bytes'],
    seriesWhen: 'always',
  },
  cpu: {
    title: 'CPU used, in cores',
    expr: `sum by (controller) (rate(edgeward_process_cpu_seconds_total${picked}${rateWindow}))`,
    legend: '{{controller}}',
    unit: 'percentunit',
    metrics: ['edgeward_process_cpu_seconds_total'],
    seriesWhen: 'always',
  },
  gcTimeShare: {
    title: 'Share of time in garbage-collection pauses, by kind',
    expr: `sum by (controller, kind) (rate(edgeward_nodejs_gc_duration_seconds_sum${picked}${rateWindow}))`,
    legend: '{{controller}} {{kind}}',
    unit: 'percentunit',
    metrics: ['edgeward_nodejs_gc_duration_seconds'],
    seriesWhen: 'always',
  },
  gcRate: {
    title: 'Garbage collections per second, by kind',
    expr: `sum by (controller, kind) (rate(edgeward_nodejs_gc_duration_seconds_count${picked}${rateWindow}))`,
    legend: '{{controller}} {{kind}}',
    unit: 'ops',
    metrics: ['edgeward_nodejs_gc_duration_seconds'],
    seriesWhen: 'always',
  },
  gcPauseP99: {
    title: 'Garbage-collection pause by kind, p99',
    expr: histogramQuantile(0.99, 'edgeward_nodejs_gc_duration_seconds', ['controller', 'kind'], picked),
    legend: '{{controller}} {{kind}} p99',
    unit: 's',
    metrics: ['edgeward_nodejs_gc_duration_seconds'],
    seriesWhen: 'always',
  },
});
