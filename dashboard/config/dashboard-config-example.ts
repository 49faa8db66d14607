// A status page config for the given controllers, routers and alerts daemon, with every other key at its default
// (commented): what the demo and the tests write, and a start for an operator's own. The text is checked against the
// schema before it is returned.

import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors } from '../../common/config/problem.ts';
import { parseYamlConfig } from '../../common/config/parse-config.ts';
import { dashboardSchema } from './dashboard-config-schema.ts';

export interface DashboardConfigExampleOptions {
  /** `host:port`; port 0 takes a free one. */
  readonly listen: string;
  /** Default: decided by the address (loopback: no login). */
  readonly auth?: 'loopback-only' | 'required';
  readonly controllers: readonly { readonly id: string; readonly url: string; readonly eventsFile?: string }[];
  readonly routers?: readonly { readonly id: string; readonly name?: string; readonly healthUrl: string }[];
  readonly caBundle?: string;
  readonly alertsDaemonUrl?: string;
  readonly credentials?: { readonly username: string; readonly passwordFile: string };
  /** Go durations. */
  readonly pollInterval?: string;
  readonly requestTimeout?: string;
  readonly runbookBaseUrl?: string;
  readonly logFile?: string;
}

export function dashboardConfigExample(options: DashboardConfigExampleOptions): string {
  const q = (value: string): string => {
    if (value.includes('$')) throw new Error(`dashboardConfigExample: "${value}" contains "$", which the config loader would expand`);
    return JSON.stringify(value);
  };
  const lines = [
    '# edgeward status page (./edgeward dashboard run <this file>); docs/status-page.md describes every key.',
    `listen: ${q(options.listen)}`,
    options.auth === undefined ? '# auth: loopback-only on a loopback address, required elsewhere' : `auth: ${options.auth}`,
    '# tls: {cert, key}: required with a login on an address other machines reach (passwords never travel in clear text)',
    options.caBundle === undefined ? '# caBundle: the PEM bundle that verifies https:// URLs' : `caBundle: ${q(options.caBundle)}`,
    'controllers:',
    ...options.controllers.flatMap((controller) => [
      `  - id: ${q(controller.id)}`,
      `    url: ${q(controller.url)}`,
      ...(controller.eventsFile === undefined ? [] : [`    eventsFile: ${q(controller.eventsFile)}`]),
    ]),
    ...(options.routers && options.routers.length > 0
      ? ['routers:', ...options.routers.flatMap((router) => [`  - id: ${q(router.id)}`, ...(router.name === undefined ? [] : [`    name: ${q(router.name)}`]), `    healthUrl: ${q(router.healthUrl)}`])]
      : ['# routers: [{id, name, healthUrl}]']),
    options.alertsDaemonUrl === undefined ? '# alertsDaemon: {url: http://127.0.0.1:9105}' : `alertsDaemon:\n  url: ${q(options.alertsDaemonUrl)}`,
    options.credentials === undefined
      ? '# credentials: {username, passwordFile}: an administrator the page logs in as to read the member list'
      : `credentials:\n  username: ${q(options.credentials.username)}\n  passwordFile: ${q(options.credentials.passwordFile)}`,
    `pollInterval: ${options.pollInterval ?? '1s'}`,
    '# history: 10m',
    'timeouts:',
    `  request: ${options.requestTimeout ?? '1500ms'}`,
    '  # login: 10s',
    '# session: {ttl: 12h, idleTimeout: 30m, maxSessions: 100}',
    '# events: {shown: 50, backlogBytes: 1048576, maxLineBytes: 1048576}',
    '# loginThrottle: {maxFailuresPerAddress: 10, maxFailures: 40, reservedForKnown: 8, window: 5m}',
    options.runbookBaseUrl === undefined ? '# runbookBaseUrl: /runbooks' : `runbookBaseUrl: ${q(options.runbookBaseUrl)}`,
    'log:',
    '  level: info',
    options.logFile === undefined ? '  # file: (unset: stderr)' : `  file: ${q(options.logFile)}`,
    '',
  ];
  const text = lines.join('\n');
  const { problems } = parseYamlConfig(dashboardSchema, text, { file: '/dashboard-config-example.yml', env: {} });
  if (hasErrors(problems)) throw new Error(`dashboardConfigExample produced an invalid config:\n${formatProblems(problems, 'example')}`);
  return text;
}
