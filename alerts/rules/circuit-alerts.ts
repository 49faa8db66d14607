// Warnings about the data plane: bursts of connections the overlay could not carry to their service. Only the
// failures of the overlay count (no terminator, no path over the links, a setup a router or the service's address
// refused), not authorization refusals (no Dial policy, failed posture), which are the policies doing their job.
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byCluster, controllerSeries, inWords } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, ramp, repeat, series, testCluster } from './testing/test-series.ts';

const dialFailureCauses = ['SETUP_FAILED', 'NO_TERMINATORS', 'NO_PATH'];
const { burst, window: burstWindow, for: burstFor } = monitoringMixin.circuitDialFailures;

export const circuitDialFailures: AlertRule = {
  name: 'EdgewardCircuitDialFailures',
  expr: `sum by (${byCluster}) (increase(${controllerSeries('edgeward_circuit_failures_total', `cause=~"${dialFailureCauses.join('|')}"`)}[${burstWindow}])) >= ${burst}`,
  for: burstFor,
  detail: ({ label, value }) =>
    `The overlay of cluster ${label('cluster')} failed to carry ${value} connections to their services in the last ${inWords(burstWindow)} (no terminator, no path, or a setup refused), for more than ${burstFor}.`,
  rationale: `Every controller counts the circuits it refused or its routers could not set up. ${burst} or more in ${inWords(burstWindow)}, for ${burstFor}, is a service whose hosting routers are gone, a partitioned link mesh or an unreachable service address, not one unlucky client; refusals by policy or posture are left out.`,
  tests: [
    {
      name: 'EdgewardCircuitDialFailures fires when dials keep failing across the cluster',
      interval: '1m',
      series: [
        series('edgeward_circuit_failures_total', { ...controllerTarget('ctrl1'), cause: 'NO_TERMINATORS' }, [0, 0, ...ramp(3, 3, 13)]),
        series('edgeward_circuit_failures_total', { ...controllerTarget('ctrl2'), cause: 'SETUP_FAILED' }, [0, 0, ...ramp(1, 1, 13)]),
      ],
      checks: [
        { at: '3m', firing: [] },
        { at: '8m', firing: [{ labels: { cluster: testCluster }, value: '20' }] },
      ],
    },
    {
      name: 'EdgewardCircuitDialFailures stays silent for a few failures, and for refusals by policy',
      interval: '1m',
      series: [
        series('edgeward_circuit_failures_total', { ...controllerTarget('ctrl1'), cause: 'NO_PATH' }, [0, 0, 1, 2, 3, ...repeat(3, 10)]),
        series('edgeward_circuit_failures_total', { ...controllerTarget('ctrl2'), cause: 'NO_DIAL_POLICY' }, [0, 0, ...ramp(10, 10, 13)]),
        series('edgeward_circuit_failures_total', { ...controllerTarget('ctrl3'), cause: 'INVALID_POSTURE' }, [0, 0, ...ramp(10, 10, 13)]),
      ],
      checks: [
        { at: '8m', firing: [] },
        { at: '14m', firing: [] },
      ],
    },
  ],
};
