// The router's configuration: its type (durations in milliseconds, addresses split, file paths absolute, defaults
// filled in) and the pure parser. Reading the file and checking that identity files exist is ../config-file.ts; the
// schema, its defaults, bounds and consequences is router-config-schema.ts.

import { substituteEnv } from '../../common/config/env-substitution.ts';
import type { Env } from '../../common/config/env-substitution.ts';
import type { Address, HostPort } from '../../common/config/address.ts';
import type { KeyPath } from '../../common/config/key-path.ts';
import { hasErrors } from '../../common/config/problem.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import { validate } from '../../common/config/schema.ts';
import { parseYamlSource } from '../../common/config/yaml-source.ts';
import type { YamlSource } from '../../common/config/yaml-source.ts';
import { dirname } from 'node:path';
import { routerSchema } from './router-config-schema.ts';
import type { dialerBindings, listenerBindings, tunnelModes, webApiBindings } from './router-config-schema.ts';
import type { AddressProtocol, TunnelService } from './router-value-formats.ts';

export type { ConfigProblem } from '../../common/config/problem.ts';
export type { AddressProtocol, TunnelService } from './router-value-formats.ts';

export type DialerBinding = (typeof dialerBindings)[number];
export type ListenerBinding = (typeof listenerBindings)[number];
export type TunnelMode = (typeof tunnelModes)[number];
export type WebApiBinding = (typeof webApiBindings)[number];
export type RouterAddress = Address<AddressProtocol>;
/** Component options the spec does not enumerate, kept as parsed. */
export type ComponentOptions = Readonly<Record<string, unknown>>;

/**
 * Identity values: an absolute file path, or as written for inline PEM (`pem:...`) and hardware engines
 * (`pkcs11:...`, `parsec:...`). server_cert/server_key default to cert/key.
 */
export interface IdentityConfig {
  readonly cert: string;
  readonly key: string;
  readonly server_cert: string;
  readonly server_key: string;
  readonly ca?: string;
  /** Extra server certificates chosen by SNI. */
  readonly alt_server_certs: readonly { readonly server_cert: string; readonly server_key: string }[];
}

/** Durations in ms. */
export interface HeartbeatConfig {
  readonly sendInterval: number;
  readonly checkInterval: number;
  readonly closeUnresponsiveTimeout: number;
}

export interface CtrlConfig {
  /** `endpoint` as a one-item list when it is set (it wins), else `endpoints`; empty when only endpointsFile can supply them. */
  readonly endpoints: readonly RouterAddress[];
  /** Local interface name or IP used to dial the controller. */
  readonly bind?: string;
  /** ms */
  readonly defaultRequestTimeout: number;
  readonly heartbeats: HeartbeatConfig;
  readonly options: ComponentOptions;
  /** Absolute; default `<config dir>/endpoints`. */
  readonly endpointsFile: string;
  /** Lowercase SHA-1 hex of the controller certificates to accept (edgeward); unset: any controller SPIFFE id of identity.ca's trust domain. */
  readonly controllerFingerprints?: readonly string[];
}

export interface DialerConfig {
  readonly binding: DialerBinding;
  readonly options: { readonly mtu?: number } & ComponentOptions;
}

export interface CsrConfig {
  readonly country?: string;
  readonly province?: string;
  readonly locality?: string;
  readonly organization?: string;
  readonly organizationalUnit?: string;
  readonly sans: {
    readonly dns: readonly string[];
    readonly ip: readonly string[];
    readonly email: readonly string[];
    readonly uri: readonly string[];
  };
}

export interface EdgeConfig {
  /** Absolute; default `<config path>.proto.gzip`. */
  readonly db: string;
  readonly dbSaveIntervalSeconds: number;
  /** Absent: the router cannot enroll or renew its enrollment. */
  readonly csr?: CsrConfig;
}

/** All values in ms except the queue lengths and worker counts. */
export interface ForwarderConfig {
  readonly faultTxInterval: number;
  readonly idleCircuitTimeout: number;
  readonly idleTxInterval: number;
  readonly linkDialQueueLength: number;
  readonly linkDialWorkerCount: number;
  readonly rateLimitedQueueLength: number;
  readonly rateLimitedWorkerCount: number;
  readonly xgressCloseCheckInterval: number;
  readonly xgressDialDwellTime: number;
  readonly xgressDialQueueLength: number;
  readonly xgressDialWorkerCount: number;
  /** No default in the spec: absent when not written. */
  readonly latencyProbeInterval?: number;
  /** Circuits this router holds at once, in any role (ingress, transit, egress); more are refused. */
  readonly maxCircuits: number;
  /** Circuits one identity dials at once through this router's edge listeners; more are refused. */
  readonly maxCircuitsPerIdentity: number;
}

/** Durations in ms. */
export interface HealthChecksConfig {
  readonly ctrlPingCheck: { readonly interval: number; readonly timeout: number; readonly initialDelay: number };
  readonly linkCheck: { readonly interval: number; readonly initialDelay: number; readonly minLinks: number };
}

export interface LinkListenerConfig {
  readonly binding: 'transport';
  readonly bind: RouterAddress;
  /** Carries a protocol; a bare `<host>:<port>` in the file takes the bind address's. */
  readonly advertise: RouterAddress;
  readonly groups: readonly string[];
  readonly options: ComponentOptions;
}

/** Durations in ms. */
export interface DialBackoffConfig {
  readonly minRetryInterval: number;
  readonly maxRetryInterval: number;
  readonly retryBackoffFactor: number;
}

export interface LinkDialerConfig {
  readonly binding: 'transport';
  readonly split: boolean;
  readonly bind?: string;
  readonly groups: readonly string[];
  readonly options: ComponentOptions;
  readonly healthyDialBackoff: DialBackoffConfig;
  readonly unhealthyDialBackoff: DialBackoffConfig;
}

export interface LinkConfig {
  readonly listeners: readonly LinkListenerConfig[];
  readonly dialers: readonly LinkDialerConfig[];
}

/** A listener that listens: `bind` (written `bind` or `address`), `advertise` (at the item or in `options`). */
export interface BoundListenerConfig {
  readonly binding: Exclude<ListenerBinding, 'tunnel'>;
  readonly bind: RouterAddress;
  readonly advertise?: HostPort;
  readonly options: ComponentOptions;
}

export interface TunnelOptions {
  readonly mode: TunnelMode;
  /** tproxy only; default udp://127.0.0.1:53. */
  readonly resolver?: string;
  /** tproxy only; default 100.64.0.1/10. */
  readonly dnsSvcIpRange?: string;
  /** proxy only. */
  readonly services?: readonly TunnelService[];
  readonly [option: string]: unknown;
}

export interface TunnelListenerConfig {
  readonly binding: 'tunnel';
  readonly options: TunnelOptions;
}

export type ListenerConfig = BoundListenerConfig | TunnelListenerConfig;

export interface ProfileConfig {
  readonly cpu?: { readonly path: string };
  /** intervalMs default 15000. */
  readonly memory?: { readonly path: string; readonly intervalMs: number };
}

export interface WebConfig {
  readonly name: string;
  readonly bindPoints: readonly { readonly interface: HostPort; readonly address: HostPort }[];
  readonly identity?: IdentityConfig;
  readonly options: ComponentOptions;
  readonly apis: readonly { readonly binding: WebApiBinding; readonly options: Readonly<Record<string, never>> }[];
}

/** An absent optional section (dialers, edge, link, listeners, trace, transport, profile, web) is undefined. */
export interface RouterConfig {
  readonly v: 3;
  readonly identity: IdentityConfig;
  readonly ctrl: CtrlConfig;
  readonly dialers?: readonly DialerConfig[];
  readonly edge?: EdgeConfig;
  readonly forwarder: ForwarderConfig;
  readonly healthChecks: HealthChecksConfig;
  readonly link?: LinkConfig;
  readonly listeners?: readonly ListenerConfig[];
  readonly metrics: { readonly reportInterval: number; readonly messageQueueSize: number; readonly intervalAgeThreshold: number };
  readonly trace?: { readonly path: string };
  readonly transport?: ComponentOptions;
  readonly profile?: ProfileConfig;
  readonly web?: readonly WebConfig[];
}

export interface ParseRouterConfigOptions {
  /** The config file's path, absolute: relative paths resolve against its directory and `edge.db` is named after it. */
  readonly file: string;
  /** Variables for `${VAR}` / `$VAR` in string values. */
  readonly env: Env;
}

export interface ParsedRouterConfig {
  /** Present only when no problem is an error. */
  readonly config?: RouterConfig;
  /** Every error and warning, in file order, each with a line (1 for what the file lacks). */
  readonly problems: ConfigProblem[];
  /** Line of a key path in the file, for checks made after parsing (identity files). */
  readonly lineOf: (path: KeyPath | string) => number | undefined;
}

/** Text in, frozen config (defaults filled in) or problems out. Unknown keys are warnings: real files carry extra keys. */
export function parseRouterConfig(text: string, options: ParseRouterConfigOptions): ParsedRouterConfig {
  const source = parseYamlSource(text);
  const lineOf = (path: KeyPath | string): number | undefined => source.lineOf(path);
  if (hasErrors(source.problems)) return { problems: withLine(source.problems), lineOf };
  const result = validate(routerSchema(options.file), substituteEnv(source.data, options.env), {
    baseDir: dirname(options.file),
    locate: lineOf,
    unknownKeys: 'warning',
  });
  const versionProblem = versionWrittenAsInteger(source);
  const problems = withLine([...source.problems, ...result.problems, ...(versionProblem ? [versionProblem] : [])]);
  const config: RouterConfig | undefined = versionProblem ? undefined : result.value;
  return config === undefined ? { problems, lineOf } : { config, problems, lineOf };
}

/** Sorted by line (a problem without one, such as an unreadable file, first), otherwise in the order found. */
function byLine(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return problems
    .map((problem, order) => ({ problem, order }))
    .sort((a, b) => (a.problem.line ?? 0) - (b.problem.line ?? 0) || a.order - b.order)
    .map(({ problem }) => problem);
}

/**
 * A problem about something the file does not have (a missing section; a missing v, identity or ctrl) has no line
 * of its own: it points at the document start, line 1, and keeps its key path, so every problem has both.
 */
function withLine(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return byLine(problems.map((problem) => (problem.line === undefined ? { ...problem, line: 1 } : problem)));
}

/** YAML reads `v: 3.0` (or `0x3`) as the number 3; OpenZiti wants the integer literal, so the text is checked too. */
function versionWrittenAsInteger(source: YamlSource): ConfigProblem | undefined {
  const written = source.sourceOf(['v']);
  if ((source.data as { v?: unknown } | null)?.v !== 3 || written === undefined || written === '3') return undefined;
  const line = source.lineOf(['v']);
  return { severity: 'error', path: 'v', ...(line === undefined ? {} : { line }), rule: 'type', message: `must be the integer 3, written 3; got ${written}`, value: written };
}
