// Routers, as the controllers see them through the metrics each router reports over its control channel.
import { routerQueries } from '../queries/router-queries.ts';
import { routerVariable } from '../queries/template-variables.ts';
import { buildDashboard, type DashboardOptions } from './dashboard-frame.ts';
import { statPanel, stateTimelinePanel, timeSeriesPanel } from './panel-builders.ts';

export const routersUid = 'edgeward-routers';

const reportsNote = 'From the metrics each router reports to the controller it is connected to; a router\'s series leave 60 s after it disconnects.';

export function routers(options: DashboardOptions) {
  return buildDashboard(
    {
      uid: routersUid,
      title: 'edgeward / Routers',
      description: 'Routers connected to the cluster: control channels, links and their latency and bytes, circuits and their failures, router memory, and dropped metrics reports.',
      tags: ['routers'],
      variables: [routerVariable],
      rows: [
        {
          title: 'Control channels',
          panels: [
            statPanel({
              title: 'Routers reporting',
              description: `Routers that reported metrics to a controller of the cluster. ${reportsNote}`,
              queries: [routerQueries.reporting],
              height: 8,
            }).noValue('0'),
            timeSeriesPanel({
              title: 'Routers per controller',
              description: `Routers reporting to each controller. ${reportsNote}`,
              queries: [routerQueries.reportingPerController],
              min: 0,
              width: 8,
            }),
            stateTimelinePanel({
              title: 'Control channel up',
              description: `Each router's control channel to each controller, as the router reported it. ${reportsNote}`,
              queries: [routerQueries.controlChannelUp],
              height: 8,
            }),
            timeSeriesPanel({
              title: 'Control channel latency',
              description: 'The last heartbeat round trip of each router\'s control channel to its controller.',
              queries: [routerQueries.controlLatency],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Dropped metrics reports',
              description: 'Metrics messages each router dropped because its queue was full (the controller unreachable for long).',
              queries: [routerQueries.droppedReports],
              min: 0,
            }),
          ],
        },
        {
          title: 'Links',
          panels: [
            timeSeriesPanel({
              title: 'Links per router',
              description: 'Links each router holds to other routers.',
              queries: [routerQueries.links],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Link latency',
              description: 'The last round trip of each link, per router and link id.',
              queries: [routerQueries.linkLatency],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Link bytes',
              description: 'Bytes each router sends on each of its links per second (circuits\' bytes with their framing, and heartbeats).',
              queries: [routerQueries.linkBytes],
              min: 0,
            }),
          ],
        },
        {
          title: 'Circuits',
          panels: [
            timeSeriesPanel({
              title: 'Circuits',
              description: 'Circuits each router forwards now, as ingress, middle hop or egress.',
              queries: [routerQueries.circuits],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Circuits set up',
              description: 'Circuits set up per second at each router (its own connections, and those it terminates for others).',
              queries: [routerQueries.circuitsCreated],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Overlay throughput',
              description: 'Bytes per second read from circuits\' connections at each router (into the overlay) and written to them (out of it).',
              queries: [routerQueries.circuitBytesIn, routerQueries.circuitBytesOut],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Circuit failures by cause',
              description: 'Circuits the controllers refused or their routers could not set up, per second, by cause (EdgewardCircuitDialFailures watches NO_TERMINATORS, NO_PATH and SETUP_FAILED).',
              queries: [routerQueries.circuitFailures],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Failed dials to hosted services',
              description: 'Dials from a hosting router to a service\'s host.v1 address that failed, per second.',
              queries: [routerQueries.dialFailures],
              min: 0,
            }),
          ],
        },
        {
          title: 'Router processes',
          panels: [
            timeSeriesPanel({
              title: 'Router heap in use',
              description: 'V8 heap in use of each router process.',
              queries: [routerQueries.heapUsed],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Router resident memory',
              description: 'Resident set size of each router process.',
              queries: [routerQueries.residentMemory],
              min: 0,
            }),
          ],
        },
      ],
    },
    options,
  );
}
