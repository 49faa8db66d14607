// The edge APIs and authentication: requests, errors and latency, logins by method and result, MFA and sessions.
import { apiQueries } from '../queries/api-queries.ts';
import { controllerVariable } from '../queries/template-variables.ts';
import { buildDashboard, type DashboardOptions } from './dashboard-frame.ts';
import { colors, thresholdSteps, timeSeriesPanel } from './panel-builders.ts';

export const apiAuthenticationUid = 'edgeward-api-authentication';

export function apiAuthentication(options: DashboardOptions) {
  return buildDashboard(
    {
      uid: apiAuthenticationUid,
      title: 'edgeward / API and authentication',
      description: 'Requests, errors and latency of the Edge Client and Management APIs; logins by method and result; wrong MFA codes; API sessions; OIDC tokens, refusals, pending logins and signing keys.',
      tags: ['api'],
      variables: [controllerVariable],
      rows: [
        {
          title: 'Requests',
          panels: [
            timeSeriesPanel({
              title: 'Requests by API',
              description: 'Requests answered per second by API (edge-client, edge-management, health-checks, metrics, root).',
              queries: [apiQueries.requestsByApi],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Requests by route',
              description: 'Requests per second by route template (never a raw path; `unmatched` for a path no route serves) and method.',
              queries: [apiQueries.requestsByRoute],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Responses by status',
              description: 'Responses per second by status code.',
              queries: [apiQueries.responsesByStatus],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel({
              title: 'Client errors by route',
              description: 'Responses 400 to 499 per second by route and status: refused logins (401), throttling (429), bad input.',
              queries: [apiQueries.clientErrorsByRoute],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel(
              {
                title: 'Server errors',
                description: 'Share of each API\'s requests answered 5xx: an internal failure, or a write refused with no leader (503).',
                queries: [apiQueries.serverErrorRatio],
                thresholds: thresholdSteps([null, colors.ok], [0.01, colors.warning], [0.05, colors.critical]),
                min: 0,
                width: 8,
              },
              { thresholdLines: true },
            ),
          ],
        },
        {
          title: 'Latency',
          panels: [
            timeSeriesPanel({
              title: 'Latency by API',
              description: 'Request duration by API: median and p99. The duration histogram is kept per API and status class, not per route.',
              queries: [apiQueries.latencyP50, apiQueries.latencyP99],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'Latency by status class',
              description: 'Request duration p99 by status class (2xx, 4xx, 5xx).',
              queries: [apiQueries.latencyByStatusClassP99],
              min: 0,
            }),
          ],
        },
        {
          title: 'Authentication',
          panels: [
            timeSeriesPanel({
              title: 'Logins by method and result',
              description: 'Primary logins (POST /authenticate) per second by method (password, cert, ext-jwt) and result (success, failure, throttled: answered 429).',
              queries: [apiQueries.logins],
              min: 0,
            }),
            timeSeriesPanel(
              {
                title: 'Logins refused',
                description: 'Share of primary logins refused or throttled, by method. A burst is a wrong password in a script, or someone guessing.',
                queries: [apiQueries.loginRefusedRatio],
                thresholds: thresholdSteps([null, colors.ok], [0.5, colors.warning]),
                min: 0,
                max: 1,
              },
              { thresholdLines: true },
            ),
            timeSeriesPanel({
              title: 'Wrong MFA codes',
              description: 'Wrong TOTP or recovery codes per second, at login and on the enrollment and recovery-code routes.',
              queries: [apiQueries.mfaFailures],
              min: 0,
            }),
            timeSeriesPanel({
              title: 'API sessions',
              description: 'API sessions in the model, including expired ones not yet swept. The model is replicated: every controller reports the same count.',
              queries: [apiQueries.apiSessions],
              min: 0,
            }),
          ],
        },
        {
          title: 'OIDC',
          panels: [
            timeSeriesPanel({
              title: 'OIDC tokens by grant and result',
              description: 'Token endpoint outcomes per second: logins finished (authorization_code issued), refreshes and token exchanges (refreshed or refused), revocations (refresh_token, access_token, end_session revoked). OIDC logins by method are in Logins by method and result.',
              queries: [apiQueries.oidcTokens],
              min: 0,
              width: 8,
            }),
            timeSeriesPanel(
              {
                title: 'OIDC refreshes refused',
                description: 'Refreshes and token exchanges refused per second by controller. A storm (EdgewardOidcRefreshFailures) is clients that cannot renew their sessions: a signing key gone, mass revocations, a clock off.',
                queries: [apiQueries.oidcRefusals],
                thresholds: thresholdSteps([null, colors.ok], [0.1, colors.warning]),
                min: 0,
                width: 8,
              },
              { thresholdLines: true },
            ),
            timeSeriesPanel({
              title: 'OIDC pending logins and signing keys',
              description: 'Authorization requests each controller holds whose login has not finished (in memory until they expire), and the signing keys published in the cluster (every controller\'s current key and retired ones still verifying tokens).',
              queries: [apiQueries.oidcPendingRequests, apiQueries.oidcSigningKeys],
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
