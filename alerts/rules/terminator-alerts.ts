// A warning about SDK-hosted services: every SDK-hosted terminator (binding `edge`) of a service that had some is gone.
// Built on the controllers' `edgeward_service_terminators` (each counts what the routers connected to it hold, so
// the sum over the controllers is the cluster's; every service has an `edge` series, 0 without SDK hosts). A service
// whose hosts moved to routers of another controller keeps its sum; a deleted service has no series and stays silent.
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byCluster, controllerSeries, inWords, nest } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, repeat, series, testCluster } from './testing/test-series.ts';

const { lookback, for: goneFor } = monitoringMixin.sdkTerminatorsGone;
const edgeTerminators = controllerSeries('edgeward_service_terminators', 'binding="edge"');
const byService = `${byCluster}, service_id, service_name`;

export const sdkTerminatorsGone: AlertRule = {
  name: 'EdgewardSdkTerminatorsGone',
  expr: [
    `sum by (${byService}) (${edgeTerminators}) == 0`,
    `and on (${byCluster}, service_id)`,
    nest(`sum by (${byCluster}, service_id) (max_over_time(${edgeTerminators}[${lookback}])) > 0`, 0),
  ].join('\n'),
  for: goneFor,
  detail: ({ label }) =>
    `Service ${label('service_name')} (${label('service_id')}) of cluster ${label('cluster')} has had no SDK-hosted terminator for more than ${goneFor}; it had some in the last ${inWords(lookback)}.`,
  rationale: `A service hosted by SDKs (Bind) is unreachable once its last hosting SDK leaves: dials fail with NO_TERMINATORS. The controllers count each service's terminators by binding; when the cluster's sum of the \`edge\` binding is 0 for ${goneFor} after being above 0 within ${inWords(lookback)}, every hosting application has left or lost its edge router. A service that never had SDK hosts, or was deleted, stays silent; hosts moving between routers or controllers keep the sum.`,
  tests: [
    {
      name: 'EdgewardSdkTerminatorsGone fires when the last SDK host of a service leaves',
      interval: '1m',
      series: [
        series('edgeward_service_terminators', { ...controllerTarget('ctrl1'), service_id: 's1', service_name: 'web', binding: 'edge' }, [2, 2, 2, 1, ...repeat(0, 10)]),
        series('edgeward_service_terminators', { ...controllerTarget('ctrl2'), service_id: 's1', service_name: 'web', binding: 'edge' }, repeat(0, 14)),
      ],
      checks: [
        { at: '5m', firing: [] },
        { at: '8m', firing: [{ labels: { cluster: testCluster, service_id: 's1', service_name: 'web' } }] },
      ],
    },
    {
      name: 'EdgewardSdkTerminatorsGone stays silent when hosts move to another controller, for a service never SDK-hosted, and for a deleted service',
      interval: '1m',
      series: [
        series('edgeward_service_terminators', { ...controllerTarget('ctrl1'), service_id: 's1', service_name: 'web', binding: 'edge' }, [1, 1, 1, ...repeat(0, 11)]),
        series('edgeward_service_terminators', { ...controllerTarget('ctrl2'), service_id: 's1', service_name: 'web', binding: 'edge' }, [0, 0, 0, ...repeat(1, 11)]),
        series('edgeward_service_terminators', { ...controllerTarget('ctrl1'), service_id: 's2', service_name: 'db', binding: 'edge' }, repeat(0, 14)),
        series('edgeward_service_terminators', { ...controllerTarget('ctrl1'), service_id: 's2', service_name: 'db', binding: 'tunnel' }, repeat(1, 14)),
        series('edgeward_service_terminators', { ...controllerTarget('ctrl1'), service_id: 's3', service_name: 'old', binding: 'edge' }, [1, 1, 1, 'stale', ...repeat('missing', 10)]),
      ],
      checks: [
        { at: '8m', firing: [] },
        { at: '13m', firing: [] },
      ],
    },
  ],
};
