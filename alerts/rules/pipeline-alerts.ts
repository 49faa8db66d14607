// Warnings about the monitoring itself: a process Prometheus cannot scrape (its metrics, and every rule that reads
// them, are blind) and an alerts daemon that cannot hand its alerts to Alertmanager.
import { clusterScopeController } from '../catalogue/alert-catalogue.ts';
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { scrapeNames } from '../prometheus/scrape-names.ts';
import { alertsDaemonSeries, byCluster, edgewardTargetsUp } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { alertsDaemonInstance, alertsDaemonTarget, controllerTarget, ramp, repeat, series, testCluster } from './testing/test-series.ts';

const { labels, jobs } = scrapeNames;
const downFor = monitoringMixin.scrapeTargetDown.for;

export const scrapeTargetDown: AlertRule = {
  name: 'EdgewardScrapeTargetDown',
  expr: [
    'label_replace(',
    `  max by (${labels.cluster}, ${labels.controller}, job, instance) (${edgewardTargetsUp()}) == 0,`,
    `  "${labels.controller}", "${clusterScopeController}", "${labels.controller}", ""`,
    ')',
  ].join('\n'),
  for: downFor,
  detail: ({ label }) =>
    `Prometheus has not scraped ${label('job')} target ${label('instance')} (controller ${label('controller')}, cluster ${label('cluster')}) for more than ${downFor}.`,
  rationale: `Every target of edgeward's jobs; the alerts daemon has no controller label and is named \`${clusterScopeController}\`. A planned restart takes a controller down for 10 to 30 seconds and a supervisor gives up within a minute, so ${downFor} down is a process that is not coming back by itself.`,
  tests: [
    {
      name: 'EdgewardScrapeTargetDown fires for a controller and an alerts daemon down for over three minutes',
      interval: '15s',
      series: [
        series('up', controllerTarget('ctrl1'), repeat(1, 24)),
        series('up', controllerTarget('ctrl2'), [...repeat(1, 4), ...repeat(0, 20)]),
        series('up', alertsDaemonTarget(), [...repeat(1, 4), ...repeat(0, 20)]),
      ],
      checks: [
        { at: '3m45s', firing: [] },
        {
          at: '5m',
          firing: [
            { labels: { cluster: testCluster, controller: 'ctrl2', job: jobs.controller, instance: controllerTarget('ctrl2')['instance']! } },
            { labels: { cluster: testCluster, controller: clusterScopeController, job: jobs.alertsDaemon, instance: alertsDaemonInstance } },
          ],
        },
      ],
    },
    {
      name: 'EdgewardScrapeTargetDown stays silent for a 30-second restart',
      interval: '15s',
      series: [series('up', controllerTarget('ctrl2'), [...repeat(1, 8), 0, 0, ...repeat(1, 14)])],
      checks: [
        { at: '3m', firing: [] },
        { at: '5m', firing: [] },
      ],
    },
  ],
};

const deliveryFor = monitoringMixin.alertDeliveryFailing.for;
export const alertDeliveryFailing: AlertRule = {
  name: 'EdgewardAlertDeliveryFailing',
  expr: [
    `max by (${byCluster}) (${alertsDaemonSeries('edgeward_alerts_delivery_queue')})`,
    `and on(${byCluster})`,
    `  sum by (${byCluster}) (increase(${alertsDaemonSeries('edgeward_alerts_deliveries_failed_total')}[5m])) > 0`,
  ].join('\n'),
  for: deliveryFor,
  detail: ({ label, value }) =>
    `The alerts daemon of cluster ${label('cluster')} has failed to deliver alerts for more than ${deliveryFor}; alerts waiting in its queue: ${value}.`,
  rationale: `Deliveries failed in every 5-minute window for ${deliveryFor}: Alertmanager is down or unreachable for longer than a restart. Its own alerts reach nobody, so Prometheus raises this one.`,
  tests: [
    {
      name: 'EdgewardAlertDeliveryFailing fires when deliveries keep failing for ten minutes',
      interval: '1m',
      series: [
        series('edgeward_alerts_deliveries_failed_total', alertsDaemonTarget(), [0, 0, ...ramp(1, 1, 18)]),
        series('edgeward_alerts_delivery_queue', alertsDaemonTarget(), [0, 0, ...repeat(4, 18)]),
      ],
      checks: [
        { at: '11m', firing: [] },
        { at: '14m', firing: [{ labels: { cluster: testCluster }, value: '4' }] },
      ],
    },
    {
      name: 'EdgewardAlertDeliveryFailing stays silent while Alertmanager restarts',
      interval: '1m',
      series: [
        series('edgeward_alerts_deliveries_failed_total', alertsDaemonTarget(), [0, 0, 0, 1, 2, 3, ...repeat(3, 14)]),
        series('edgeward_alerts_delivery_queue', alertsDaemonTarget(), [0, 0, 0, 2, 3, 1, ...repeat(0, 14)]),
      ],
      checks: [
        { at: '12m', firing: [] },
        { at: '19m', firing: [] },
      ],
    },
  ],
};
