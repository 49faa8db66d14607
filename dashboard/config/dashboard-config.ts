// The status page's configuration: its type (durations in milliseconds, paths absolute) and the pure parser.
// Reading the file is dashboard-config-file.ts; the schema and its rules are dashboard-config-schema.ts.

import type { HostPort } from '../../common/config/address.ts';
import type { Env } from '../../common/config/env-substitution.ts';
import { parseYamlConfig } from '../../common/config/parse-config.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import { dashboardSchema } from './dashboard-config-schema.ts';
import type { authModes, logLevels } from './dashboard-config-schema.ts';

export type { ConfigProblem } from '../../common/config/problem.ts';

export interface ControllerSource {
  readonly id: string;
  /** The web origin: https://host:port, no path. */
  readonly url: string;
  /** Its JSON-lines event file: recent cluster events and commit lag. */
  readonly eventsFile?: string;
}

export interface RouterSource {
  readonly id: string;
  readonly name?: string;
  readonly healthUrl: string;
}

export interface DashboardConfig {
  readonly listen: HostPort;
  readonly auth: (typeof authModes)[number];
  readonly tls?: { readonly cert: string; readonly key: string };
  readonly controllers: readonly ControllerSource[];
  readonly routers: readonly RouterSource[];
  readonly caBundle?: string;
  readonly alertsDaemon?: { readonly url: string };
  readonly credentials?: { readonly username: string; readonly passwordFile: string };
  /** Milliseconds, like every duration below. */
  readonly pollInterval: number;
  readonly history: number;
  readonly timeouts: { readonly request: number; readonly login: number };
  readonly session: { readonly ttl: number; readonly idleTimeout: number; readonly maxSessions: number };
  readonly events: { readonly shown: number; readonly backlogBytes: number; readonly maxLineBytes: number };
  /** Refused or in-flight logins allowed per address and for the whole page within `window` (login-throttle.ts). */
  readonly loginThrottle: { readonly maxFailuresPerAddress: number; readonly maxFailures: number; readonly reservedForKnown: number; readonly window: number };
  readonly runbookBaseUrl: string;
  readonly log: { readonly level: (typeof logLevels)[number]; readonly file?: string };
}

export interface ParseDashboardConfigOptions {
  /** The file's path; relative paths inside resolve against its directory, so pass it absolute. */
  readonly file: string;
  readonly env: Env;
}

/** Text in, frozen config or problems out. `config` is present only when no problem is an error. */
export function parseDashboardConfig(text: string, options: ParseDashboardConfigOptions): { config?: DashboardConfig; problems: ConfigProblem[] } {
  const parsed = parseYamlConfig(dashboardSchema, text, options);
  return parsed.config === undefined ? { problems: parsed.problems } : { config: parsed.config, problems: parsed.problems };
}
