// The one place the router config touches the disk: read the file, hand the text to the pure parser, and check
// the files it names. `router validate` reports missing identity files as warnings (enrollment writes them);
// `router run` reports them as errors.

import { existsSync } from 'node:fs';
import { readConfigText } from '../common/config-io/read-config-text.ts';
import { tmpdir } from 'node:os';
import type { Env } from '../common/config/env-substitution.ts';
import type { ConfigProblem, Severity } from '../common/config/problem.ts';
import { formatKeyPath } from '../common/config/key-path.ts';
import type { KeyPath } from '../common/config/key-path.ts';
import { identityFile } from './config/identity-source.ts';
import { parseRouterConfig } from './config/router-config.ts';
import type { IdentityConfig, ParsedRouterConfig, RouterConfig } from './config/router-config.ts';

export interface ReadRouterConfigResult extends ParsedRouterConfig {
  /** The file's absolute path. */
  readonly file: string;
}

/** Reads and parses a router config; an unreadable file is reported as a problem, not thrown. */
export async function readRouterConfig(file: string, env: Env = process.env): Promise<ReadRouterConfigResult> {
  const read = await readConfigText(file);
  if ('problem' in read) return { file: read.file, problems: [read.problem], lineOf: () => undefined };
  // As OpenZiti does before expanding variables: the temp-dir variables always name the OS temp dir.
  const temp = tmpdir();
  return { file: read.file, ...parseRouterConfig(read.text, { file: read.file, env: { ...env, TMP: temp, TEMP: temp, TMPDIR: temp } }) };
}

export interface CheckFilesOptions {
  /** 'warning' for `router validate`, 'error' for `router run`. */
  readonly severity: Severity;
  readonly lineOf: (path: KeyPath) => number | undefined;
  readonly exists?: (path: string) => boolean;
}

/**
 * The identity files (top level and per web listener) that do not exist, each reported once at the first key
 * naming it; and, when the file gives no controller address, an endpointsFile that does not exist.
 */
export function checkRouterFiles(config: RouterConfig, options: CheckFilesOptions): ConfigProblem[] {
  const exists = options.exists ?? existsSync;
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  const report = (path: KeyPath, rule: string, message: string, value: string) => {
    problems.push({ severity: options.severity, path: formatKeyPath(path), line: locate(options.lineOf, path), rule, message, value });
  };

  const checkIdentity = (identity: IdentityConfig, at: KeyPath, enrollment: boolean) => {
    const entries: [KeyPath, string | undefined, string][] = [
      [[...at, 'cert'], identity.cert, 'enrollment writes it'],
      [[...at, 'key'], identity.key, 'enrollment generates it'],
      [[...at, 'server_cert'], identity.server_cert, 'enrollment writes it'],
      [[...at, 'server_key'], identity.server_key, 'enrollment generates it'],
      [[...at, 'ca'], identity.ca, 'enrollment writes it'],
      ...identity.alt_server_certs.flatMap((alt, i): [KeyPath, string, string][] => [
        [[...at, 'alt_server_certs', i, 'server_cert'], alt.server_cert, ''],
        [[...at, 'alt_server_certs', i, 'server_key'], alt.server_key, ''],
      ]),
    ];
    for (const [path, value, byEnrollment] of entries) {
      const file = value === undefined ? undefined : identityFile(value);
      if (file === undefined || seen.has(file)) continue;
      seen.add(file);
      if (exists(file)) continue;
      const hint = enrollment && byEnrollment !== '' ? ` (${byEnrollment})` : '';
      report(path, 'file-missing', `file "${file}" does not exist${hint}`, file);
    }
  };

  checkIdentity(config.identity, ['identity'], true);
  config.web?.forEach((web, i) => {
    if (web.identity) checkIdentity(web.identity, ['web', i, 'identity'], false);
  });

  // `router run` dials only tls: addresses, so endpoints of other protocols do not count.
  if (!config.ctrl.endpoints.some((endpoint) => endpoint.protocol === 'tls') && !exists(config.ctrl.endpointsFile)) {
    const given = config.ctrl.endpoints.length === 0 ? 'ctrl gives none' : 'ctrl gives no tls: address';
    report(['ctrl', 'endpointsFile'], 'no-controller', `no controller address: ${given} and endpointsFile "${config.ctrl.endpointsFile}" does not exist`, config.ctrl.endpointsFile);
  }
  return problems;
}

/** The line of the path or its nearest written ancestor; the document start (1) when none is written. */
function locate(lineOf: (path: KeyPath) => number | undefined, path: KeyPath): number {
  for (let depth = path.length; depth > 0; depth--) {
    const line = lineOf(path.slice(0, depth));
    if (line !== undefined) return line;
  }
  return 1;
}
