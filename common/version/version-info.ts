// What `GET /version` reports. The version string can be overridden (EDGEWARD_VERSION) so cluster tests can run
// members at different versions.
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export interface VersionInfo {
  readonly version: string;
  readonly revision: string;
  readonly buildDate: string;
  readonly runtimeVersion: string;
}

export function currentVersion(env: NodeJS.ProcessEnv = process.env): VersionInfo {
  return {
    version: env.EDGEWARD_VERSION && env.EDGEWARD_VERSION.trim() !== '' ? env.EDGEWARD_VERSION.trim() : `v${packageJson.version}`,
    revision: env.EDGEWARD_REVISION ?? 'development',
    buildDate: env.EDGEWARD_BUILD_DATE ?? 'unknown',
    runtimeVersion: `node${process.versions.node}`,
  };
}
