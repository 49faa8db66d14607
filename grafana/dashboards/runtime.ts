// The Node.js runtime of each controller: how late the event loop runs, memory, CPU and garbage collection.
import { runtimeQueries } from '../queries/runtime-queries.ts';
import { controllerVariable } from '../queries/template-variables.ts';
import { buildDashboard, type DashboardOptions } from './dashboard-frame.ts';
import { colors, thresholdSteps, timeSeriesPanel } from './panel-builders.ts';

export const runtimeUid = 'edgeward-runtime';

export function runtime(options: DashboardOptions) {
  return buildDashboard(
    {
      uid: runtimeUid,
      title: 'edgeward / Runtime',
      description: 'Event-loop delay, heap, resident memory, CPU and garbage collection of each controller process.',
      tags: ['runtime'],
      variables: [controllerVariable],
      rows: [
        {
          title: 'Event loop and CPU',
          panels: [
            timeSeriesPanel(
              {
                title: 'Event-loop delay',
                description: 'How late a 100 ms timer fires: the time the event loop was blocked. Median and p99. Heartbeats and requests wait as long.',
                queries: [runtimeQueries.eventLoopDelayP50, runtimeQueries.eventLoopDelayP99],
                thresholds: thresholdSteps([null, colors.ok], [0.1, colors.warning], [1, colors.critical]),
                min: 0,
              },
              { thresholdLines: true },
            ),
            timeSeriesPanel({
              title: 'CPU',
              description: 'CPU time the process used, user and system, per second: 100% is one core.',
              queries: [runtimeQueries.cpu],
              min: 0,
            }),
          ],
        },
        {
          title: 'Memory',
          panels: [
            timeSeriesPanel({
              title: 'Heap',
              description: 'V8 heap in use and allocated.',
              queries: [runtimeQueries.heapUsed, runtimeQueries.heapTotal],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Resident memory',
              description: 'Resident set size of the process: heap, buffers and code.',
              queries: [runtimeQueries.residentMemory],
              min: 0,
            }),
          ],
        },
        {
          title: 'Garbage collection',
          panels: [
            timeSeriesPanel({
              title: 'Time in GC pauses',
              description: 'Share of time spent in garbage-collection pauses, by kind (minor, major, incremental, weakcb).',
              queries: [runtimeQueries.gcTimeShare],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel({
              title: 'Collections per second',
              description: 'Garbage collections per second, by kind.',
              queries: [runtimeQueries.gcRate],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel({
              title: 'GC pause p99',
              description: 'The 99th percentile pause of each kind of collection.',
              queries: [runtimeQueries.gcPauseP99],
              min: 0,
              width: 8,
            }),
          ],
        },
      ],
    },
    options,
  );
}
