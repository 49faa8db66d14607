// The controller's configuration: its type (values parsed: durations in milliseconds, addresses split, paths
// absolute) and the pure parser. Reading the file is controller-config-file.ts; the schema and its rules are
// controller-config-schema.ts.

import type { Address, HostPort } from '../../common/config/address.ts';
import type { Env } from '../../common/config/env-substitution.ts';
import { parseYamlConfig } from '../../common/config/parse-config.ts';
import type { ConfigProblem } from '../../common/config/problem.ts';
import { controllerSchema } from './controller-config-schema.ts';
import type { apiBindings, tlsVersions } from './controller-config-schema.ts';

export { controllerConfigExample } from './controller-config-example.ts';
export type { ControllerConfigExampleOptions, ExampleIdentityPaths } from './controller-config-example.ts';
export type { ConfigProblem } from '../../common/config/problem.ts';

export type ApiBinding = (typeof apiBindings)[number];
export type TlsVersion = (typeof tlsVersions)[number];
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Certificate and key files; server_cert/server_key default to cert/key. */
export interface IdentityConfig {
  readonly cert: string;
  readonly key: string;
  readonly server_cert: string;
  readonly server_key: string;
  readonly ca: string;
}

/** Durations in ms. */
export interface PeerHeartbeatConfig {
  readonly sendInterval: number;
  readonly checkInterval: number;
  readonly closeUnresponsiveTimeout: number;
}

export interface CtrlConfig {
  readonly listener: Address<'tls'>;
  /** `peerHeartbeatOptions` in the file, or its alias `peerHeartbeats` (OpenZiti's spelling). */
  readonly options: {
    readonly peerHeartbeatOptions: PeerHeartbeatConfig;
    readonly advertiseAddress?: Address<'tls'>;
    /** Pre-authentication limits of the control port; durations in ms. */
    readonly handshakeTimeout: number;
    readonly helloTimeout: number;
    readonly maxHelloBytes: number;
    readonly maxConnectionsPerSource: number;
  };
}

/** Raft settings; durations in ms. */
export interface ClusterConfig {
  readonly dataDir: string;
  readonly snapshotInterval: number;
  readonly snapshotThreshold: number;
  readonly trailingLogs: number;
  readonly snapshotLogEntries: number;
  readonly snapshotLogBytes: number;
  readonly warnWhenLeaderlessFor: number;
  readonly preferredLeader: boolean;
  readonly allowJoinRequests: boolean;
  readonly electionTimeout: number;
  readonly heartbeatTimeout: number;
  readonly commitTimeout: number;
  /** The raft node, its log and the peer channels on a thread of their own. */
  readonly raftThread: boolean;
  readonly backup: BackupConfig;
}

/** Scheduled online backups: `interval` in ms (0: no schedule), `dir` absolute, the newest `retain` kept. */
export interface BackupConfig {
  readonly interval: number;
  readonly dir: string;
  readonly retain: number;
}

/** Durations in ms. */
export interface EdgeApiConfig {
  readonly sessionTimeout: number;
  readonly activityUpdateInterval: number;
  readonly activityUpdateBatchSize: number;
}

export interface EnrollmentConfig {
  readonly signingCert?: { readonly cert: string; readonly key: string };
  readonly edgeIdentity: { readonly duration: number };
  readonly edgeRouter: { readonly duration: number };
}

/** Durations in ms. */
export interface AuthThrottleConfig {
  readonly enabled: boolean;
  readonly window: number;
  readonly maxFailuresPerAddress: number;
  readonly maxFailuresPerUser: number;
  readonly maxTrackedKeys: number;
}

export interface EdgeConfig {
  readonly api: EdgeApiConfig;
  readonly enrollment: EnrollmentConfig;
  /** lockoutDuration in ms. */
  readonly totp: { readonly hostname: string; readonly secretKeyFile?: string; readonly maxFailedCodes: number; readonly lockoutDuration: number };
  readonly authThrottle: AuthThrottleConfig;
  readonly passwordHashing: { readonly concurrency: number; readonly maxQueued: number };
  /** JWKS endpoints may resolve to loopback, link-local and private addresses. */
  readonly extJwt: { readonly allowPrivateJwksAddresses: boolean };
  /** Durations in ms. */
  readonly oidc: { readonly enabled: boolean; readonly accessTokenDuration: number; readonly refreshTokenDuration: number; readonly idTokenDuration: number; readonly keyRotation: number };
}

export interface WebBindPoint {
  /** Where to listen. */
  readonly interface: HostPort;
  /** What clients dial, advertised in URLs. */
  readonly address: HostPort;
}

/** Durations in ms. */
export interface WebOptions {
  readonly idleTimeout: number;
  readonly readTimeout: number;
  readonly writeTimeout: number;
  readonly requestTimeout: number;
  readonly handshakeTimeout: number;
  readonly maxConnections: number;
  readonly minTLSVersion: TlsVersion;
  readonly maxTLSVersion: TlsVersion;
  readonly maxBodyBytes: number;
}

export interface WebApi {
  readonly binding: ApiBinding;
  /** No binding takes options yet; the key is accepted for OpenZiti's layout. */
  readonly options: Readonly<Record<string, never>>;
}

export interface WebConfig {
  readonly name: string;
  readonly bindPoints: readonly WebBindPoint[];
  /** Overrides the top-level identity for this listener. */
  readonly identity?: IdentityConfig;
  readonly options: WebOptions;
  readonly apis: readonly WebApi[];
}

export type EventSubscriptionConfig =
  | { readonly type: 'cluster' }
  | { readonly type: 'entityChange'; readonly propagateAlways: boolean; readonly include: readonly string[] }
  | { readonly type: 'apiSession'; readonly propagateAlways: boolean; readonly include: readonly ('created' | 'deleted' | 'refreshed' | 'exchanged' | 'revoked')[] }
  | { readonly type: 'authentication'; readonly include: readonly ('success' | 'fail')[] }
  | { readonly type: 'circuit'; readonly include: readonly ('created' | 'pathUpdated' | 'deleted' | 'failed')[] }
  | { readonly type: 'metrics'; readonly sourceFilter?: string; readonly metricFilter?: string };

export type EventOutputConfig =
  | { readonly type: 'file'; readonly format: 'json'; readonly path: string; readonly maxsizemb: number; readonly maxbackups: number; readonly bufferSize: number }
  | { readonly type: 'stdout'; readonly format: 'json'; readonly bufferSize: number };

export interface EventHandlerConfig {
  readonly subscriptions: readonly EventSubscriptionConfig[];
  readonly handler: EventOutputConfig;
}

export interface ControllerConfig {
  readonly v: 3;
  readonly identity: IdentityConfig;
  readonly ctrl: CtrlConfig;
  readonly cluster: ClusterConfig;
  readonly edge: EdgeConfig;
  readonly web: readonly WebConfig[];
  /** Handler name → handler; empty when the file has no `events:`. */
  readonly events: Readonly<Record<string, EventHandlerConfig>>;
  /** `file` unset means stderr. */
  readonly log: { readonly level: LogLevel; readonly file?: string };
  /** `socket` defaults to `<cluster.dataDir>/agent.sock`. */
  readonly agent: { readonly socket: string };
  readonly telemetry: TelemetryConfig;
}

/** Traces over OTLP/HTTP; `otlp` unset: only the OTEL_EXPORTER_OTLP_* variables can turn them on. */
export interface TelemetryConfig {
  readonly serviceName: string;
  /** timeout in ms. */
  readonly otlp?: { readonly endpoint: string; readonly headers: Readonly<Record<string, string>>; readonly timeout: number };
}

export interface ParseControllerConfigOptions {
  /** The config file's path; relative paths inside resolve against its directory, so pass it absolute. */
  readonly file: string;
  /** Variables for `${VAR}` / `$VAR` in string values. */
  readonly env: Env;
}

/** Text in, frozen config or problems out. `config` is present only when no problem is an error. */
export function parseControllerConfig(text: string, options: ParseControllerConfigOptions): { config?: ControllerConfig; problems: ConfigProblem[] } {
  return parseYamlConfig(controllerSchema, text, options);
}
