// The edge APIs and authentication: request rates by API, route and status, latency, logins by method and result,
// wrong MFA codes and API sessions.
import { defineQueries } from './catalogue-query.ts';
import { histogramQuantile, rateWindow, selectedControllers } from './promql-selectors.ts';

const picked = selectedControllers();
const requests = (matcher = '') => `rate(edgeward_http_requests_total${selectedControllers(matcher)}${rateWindow})`;

const latency = (quantile: number) => ({
  title: `Request duration by API, p${quantile * 100}`,
  expr: histogramQuantile(quantile, 'edgeward_http_request_duration_seconds', ['api'], picked),
  legend: `{{api}} p${quantile * 100}`,
  unit: 's' as const,
  metrics: ['edgeward_http_request_duration_seconds' as const],
  seriesWhen: 'always' as const,
});

export const apiQueries = defineQueries('api', {
  requestsByApi: {
    title: 'Requests per second by API',
    expr: `sum by (api) (${requests()})`,
    legend: '{{api}}',
    unit: 'reqps',
    metrics: ['edgeward_http_requests_total'],
    seriesWhen: 'always',
  },
  requestsByRoute: {
    title: 'Requests per second by route',
    expr: `sum by (api, method, route) (${requests()})`,
    legend: '{{method}} {{api}} {{route}}',
    unit: 'reqps',
    metrics: ['edgeward_http_requests_total'],
    seriesWhen: 'always',
  },
  responsesByStatus: {
    title: 'Responses per second by status code',
    expr: `sum by (status) (${requests()})`,
    legend: '{{status}}',
    unit: 'reqps',
    metrics: ['edgeward_http_requests_total'],
    seriesWhen: 'always',
  },
  clientErrorsByRoute: {
    title: 'Client errors (4xx) per second by route and status',
    expr: `sum by (api, route, status) (${requests('status=~"4.."')})`,
    legend: '{{status}} {{api}} {{route}}',
    unit: 'reqps',
    metrics: ['edgeward_http_requests_total'],
    seriesWhen: 'always',
  },
  serverErrorRatio: {
    title: 'Share of requests answered 5xx, by API',
    // An API with no 5xx yet has no such series: it counts as 0 rather than vanishing from the panel.
    expr: `(sum by (api) (${requests('status=~"5.."')}) or 0 * sum by (api) (${requests()})) / sum by (api) (${requests()})`,
    legend: '{{api}}',
    unit: 'percentunit',
    metrics: ['edgeward_http_requests_total'],
    seriesWhen: 'always',
  },
  latencyP50: latency(0.5),
  latencyP99: latency(0.99),
  latencyByStatusClassP99: {
    title: 'Request duration by status class, p99',
    expr: histogramQuantile(0.99, 'edgeward_http_request_duration_seconds', ['status_class'], picked),
    legend: '{{status_class}} p99',
    unit: 's',
    metrics: ['edgeward_http_request_duration_seconds'],
    seriesWhen: 'always',
  },
  logins: {
    title: 'Primary logins per second by method and result',
    expr: `sum by (method, result) (rate(edgeward_authentications_total${picked}${rateWindow}))`,
    legend: '{{method}} {{result}}',
    unit: 'ops',
    metrics: ['edgeward_authentications_total'],
    seriesWhen: 'always',
  },
  loginRefusedRatio: {
    title: 'Share of primary logins refused or throttled, by method',
    expr: `sum by (method) (rate(edgeward_authentications_total${selectedControllers('result=~"failure|throttled"')}${rateWindow})) / sum by (method) (rate(edgeward_authentications_total${picked}${rateWindow}))`,
    legend: '{{method}}',
    unit: 'percentunit',
    metrics: ['edgeward_authentications_total'],
    seriesWhen: 'always',
  },
  mfaFailures: {
    title: 'Wrong MFA codes per second',
    expr: `sum by (controller) (rate(edgeward_mfa_code_failures_total${picked}${rateWindow}))`,
    legend: '{{controller}}',
    unit: 'ops',
    metrics: ['edgeward_mfa_code_failures_total'],
    seriesWhen: 'always',
  },
  apiSessions: {
    title: 'API sessions in the model',
    expr: `max by (controller) (edgeward_api_sessions${picked})`,
    legend: '{{controller}}',
    unit: 'short',
    metrics: ['edgeward_api_sessions'],
    seriesWhen: 'always',
  },
  // Every token counter series starts at 0, so these draw a flat line before the first OIDC login.
  oidcTokens: {
    title: 'OIDC token endpoint outcomes per second by grant and result',
    expr: `sum by (grant, result) (rate(edgeward_oidc_tokens_total${picked}${rateWindow}))`,
    legend: '{{grant}} {{result}}',
    unit: 'ops',
    metrics: ['edgeward_oidc_tokens_total'],
    seriesWhen: 'always',
  },
  oidcRefusals: {
    title: 'OIDC refreshes and exchanges refused per second, by controller',
    expr: `sum by (controller) (rate(edgeward_oidc_tokens_total${selectedControllers('result="refused"')}${rateWindow}))`,
    legend: '{{controller}}',
    unit: 'ops',
    metrics: ['edgeward_oidc_tokens_total'],
    seriesWhen: 'always',
  },
  oidcPendingRequests: {
    title: 'OIDC authorization requests waiting for their login',
    expr: `max by (controller) (edgeward_oidc_authorization_requests_pending${picked})`,
    legend: '{{controller}} pending logins',
    unit: 'short',
    metrics: ['edgeward_oidc_authorization_requests_pending'],
    seriesWhen: 'always',
  },
  oidcSigningKeys: {
    title: 'OIDC signing keys published in the cluster',
    expr: `max by (controller) (edgeward_oidc_signing_keys${picked})`,
    legend: '{{controller}} signing keys',
    unit: 'short',
    metrics: ['edgeward_oidc_signing_keys'],
    seriesWhen: 'always',
  },
});
