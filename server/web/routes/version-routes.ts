// GET /version (and `/`, and each API's own /version): what this controller is and which APIs it serves where.
import type { ApiRouter } from '../api-router.ts';
import type { VersionInfo } from '../../../common/version/version-info.ts';
import { sendDetail } from './route-kit.ts';

export const apiPaths = {
  'edge-client': '/edge/client/v1',
  'edge-management': '/edge/management/v1',
  'health-checks': '/health-checks',
  metrics: '/metrics',
} as const;

export type ApiBinding = keyof typeof apiPaths;

/** baseUrls: for each bound API, the https://host:port origins it is reachable at. `oidc`: OIDC is served (at
 * `/oidc` wherever the client API is), so OpenZiti's SDKs log in with it (they need both the capability and the
 * `edge-oidc` entry). */
export function versionBody(version: VersionInfo, baseUrls: Partial<Record<ApiBinding, readonly string[]>>, oidc = false) {
  const apiVersions: Record<string, unknown> = {};
  const entry = (binding: ApiBinding) => ({ v1: { path: apiPaths[binding], apiBaseUrls: (baseUrls[binding] ?? []).map((origin) => `${origin}${apiPaths[binding]}`) } });
  if (baseUrls['edge-client']) {
    apiVersions['edge-client'] = entry('edge-client');
    apiVersions.edge = entry('edge-client');
  }
  if (baseUrls['edge-management']) apiVersions['edge-management'] = entry('edge-management');
  if (baseUrls['health-checks']) apiVersions['health-checks'] = entry('health-checks');
  const withOidc = oidc && baseUrls['edge-client'] !== undefined;
  if (withOidc) apiVersions['edge-oidc'] = { v1: { path: '/oidc', apiBaseUrls: (baseUrls['edge-client'] ?? []).map((origin) => `${origin}/oidc`) } };
  return { ...version, capabilities: withOidc ? ['OIDC_AUTH', 'HA_CONTROLLER'] : ['HA_CONTROLLER'], apiVersions };
}

export function versionRoutes(router: ApiRouter, paths: readonly string[], body: () => unknown): void {
  for (const path of paths) router.get(path, (ctx) => sendDetail(ctx, body()));
}
