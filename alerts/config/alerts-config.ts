// The alerts daemon's configuration: its type (durations in milliseconds, paths absolute) and the pure parser.
// Reading the file is alerts-config-file.ts; the schema and its rules are alerts-config-schema.ts.

import type { HostPort } from '../../common/config/address.ts';
import type { Env } from '../../common/config/env-substitution.ts';
import { parseYamlConfig } from '../../common/config/parse-config.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import type { RuleSettings } from '../core/evaluator/rule-settings.ts';
import { alertsSchema } from './alerts-config-schema.ts';
import type { logLevels } from './alerts-config-schema.ts';

export type { ConfigProblem } from '../../common/config/problem.ts';

export interface ControllerWatch {
  readonly id: string;
  readonly logFile?: string;
  /** One or more JSON-lines event files this controller writes. */
  readonly eventsFile?: readonly string[];
  readonly healthUrl?: string;
  readonly metricsUrl?: string;
  readonly preferredLeader: boolean;
}

/** Durations in ms. */
export interface AlertmanagerSettings {
  readonly urls: readonly string[];
  readonly resendInterval: number;
  readonly timeout: number;
  readonly retryInitialBackoff: number;
  readonly retryMaxBackoff: number;
  readonly resolvedRetention: number;
}

export interface FileSettings {
  /** Where a file seen for the first time, with no saved offset, is read from: its end (`tail -F`) or its start. */
  readonly initialPosition: 'end' | 'start';
  /** Every file is checked this often besides the watcher's events (ms). */
  readonly recheckInterval: number;
  readonly maxLineBytes: number;
}

/** The evaluator's settings plus how often and how long the polls run (ms). */
export interface RulesConfig extends RuleSettings {
  readonly healthPollInterval: number;
  readonly healthPollTimeout: number;
  readonly metricsPollInterval: number;
  readonly metricsPollTimeout: number;
}

export interface AlertsConfig {
  readonly cluster: string;
  readonly controllers: readonly ControllerWatch[];
  readonly caBundle?: string;
  readonly alertmanager: AlertmanagerSettings;
  readonly stateDir: string;
  readonly listen: HostPort;
  readonly runbookBaseUrl: string;
  readonly files: FileSettings;
  readonly rules: RulesConfig;
  readonly log: { readonly level: (typeof logLevels)[number]; readonly file?: string };
}

export interface ParseAlertsConfigOptions {
  /** The file's path; relative paths inside resolve against its directory, so pass it absolute. */
  readonly file: string;
  readonly env: Env;
}

/** Text in, frozen config or problems out. `config` is present only when no problem is an error. */
export function parseAlertsConfig(text: string, options: ParseAlertsConfigOptions): { config?: AlertsConfig; problems: ConfigProblem[] } {
  return parseYamlConfig(alertsSchema, text, options);
}
