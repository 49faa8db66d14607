// A warning about OIDC sessions: a storm of refused refreshes. Each controller counts the refreshes and token
// exchanges its token endpoint refused; a burst across the cluster is clients that cannot renew their sessions (after
// a signing key vanished before its tokens expired, a mass revocation, a controller with a wrong clock), not one
// client with a stale token.
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byCluster, controllerSeries, inWords } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, ramp, repeat, series, testCluster } from './testing/test-series.ts';

const { burst, window: burstWindow, for: burstFor } = monitoringMixin.oidcRefreshFailures;

export const oidcRefreshFailures: AlertRule = {
  name: 'EdgewardOidcRefreshFailures',
  expr: `sum by (${byCluster}) (increase(${controllerSeries('edgeward_oidc_tokens_total', 'result="refused"')}[${burstWindow}])) >= ${burst}`,
  for: burstFor,
  detail: ({ label, value }) =>
    `The controllers of cluster ${label('cluster')} refused ${value} OIDC token refreshes or exchanges in the last ${inWords(burstWindow)}, for more than ${burstFor}.`,
  rationale: `Every controller counts the refreshes and token exchanges its token endpoint refused. ${burst} or more across the cluster in ${inWords(burstWindow)}, for ${burstFor}, is many clients failing to renew their sessions (a signing key gone before its tokens expired, a mass revocation, a clock off), not one client with a stale token.`,
  tests: [
    {
      name: 'EdgewardOidcRefreshFailures fires when refreshes keep being refused across the cluster',
      interval: '1m',
      series: [
        series('edgeward_oidc_tokens_total', { ...controllerTarget('ctrl1'), grant: 'refresh_token', result: 'refused' }, [0, 0, ...ramp(6, 6, 13)]),
        series('edgeward_oidc_tokens_total', { ...controllerTarget('ctrl2'), grant: 'token_exchange', result: 'refused' }, [0, 0, ...ramp(2, 2, 13)]),
        series('edgeward_oidc_tokens_total', { ...controllerTarget('ctrl3'), grant: 'refresh_token', result: 'refreshed' }, [0, 0, ...ramp(50, 50, 13)]),
      ],
      checks: [
        { at: '3m', firing: [] },
        { at: '8m', firing: [{ labels: { cluster: testCluster }, value: '40' }] },
      ],
    },
    {
      name: 'EdgewardOidcRefreshFailures stays silent for a few refusals, and for many successful refreshes',
      interval: '1m',
      series: [
        series('edgeward_oidc_tokens_total', { ...controllerTarget('ctrl1'), grant: 'refresh_token', result: 'refused' }, [0, 0, 1, 2, 3, ...repeat(3, 10)]),
        series('edgeward_oidc_tokens_total', { ...controllerTarget('ctrl2'), grant: 'refresh_token', result: 'refreshed' }, [0, 0, ...ramp(100, 100, 13)]),
        series('edgeward_oidc_tokens_total', { ...controllerTarget('ctrl3'), grant: 'authorization_code', result: 'issued' }, [0, 0, ...ramp(100, 100, 13)]),
      ],
      checks: [
        { at: '8m', firing: [] },
        { at: '14m', firing: [] },
      ],
    },
  ],
};
