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

/** baseUrls: for each bound API, the https://host:port origins it is reachable at. */
export function versionBody(version: VersionInfo, baseUrls: Partial<Record<ApiBinding, readonly string[]>>) {
  const apiVersions: Record<string, unknown> = {};
  const entry = (binding: ApiBinding) => ({ v1: { path: apiPaths[binding], apiBaseUrls: (baseUrls[binding] ?? []).map((origin) => `${origin}${apiPaths[binding]}`) } });
  if (baseUrls['edge-client']) {
    apiVersions['edge-client'] = entry('edge-client');
    apiVersions.edge = entry('edge-client');
  }
  if (baseUrls['edge-management']) apiVersions['edge-management'] = entry('edge-management');
  if (baseUrls['health-checks']) apiVersions['health-checks'] = entry('health-checks');
  return { ...version, capabilities: ['HA_CONTROLLER'], apiVersions };
}

export function versionRoutes(router: ApiRouter, paths: readonly string[], body: () => unknown): void {
  for (const path of paths) router.get(path, (ctx) => sendDetail(ctx, body()));
}
