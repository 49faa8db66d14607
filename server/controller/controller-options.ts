// Everything a running controller needs, already read and checked: built from the YAML config by
// controller-from-config.ts, or directly by tests.
import type { ApiBinding } from '../web/routes/version-routes.ts';
import type { EventSubscription } from '../events/event-dispatcher.ts';
import type { ControlPortLimits } from '../control-port/control-port-limits.ts';
import type { HashQueueLimits } from '../edge/login/hash-queue.ts';
import type { LoginThrottleLimits } from '../edge/login/login-throttle.ts';

export interface TlsMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
}

export interface WebListener {
  readonly name: string;
  readonly bindPoints: ReadonlyArray<{ readonly interfaceHost: string; readonly interfacePort: number; readonly address: string }>;
  readonly apis: readonly ApiBinding[];
  readonly tls: TlsMaterial;
  readonly maxBodyBytes: number;
  readonly idleTimeoutMs: number;
  readonly readTimeoutMs: number;
  /** A connection that neither sends nor takes a byte for this long is closed (a client that stopped reading). */
  readonly writeTimeoutMs: number;
  /** The whole request, headers and body, must have arrived within this long (answered 408 otherwise). */
  readonly requestTimeoutMs: number;
  readonly handshakeTimeoutMs: number;
  /** Per bind point; a connection past it is closed as soon as it is accepted. */
  readonly maxConnections: number;
  readonly minTlsVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly maxTlsVersion: 'TLSv1.2' | 'TLSv1.3';
}

export interface EventHandlerOptions {
  readonly name: string;
  readonly subscriptions: readonly EventSubscription[];
  /** A file handler rotates its file past `maxsizemb` and keeps `maxbackups` rotated files (0: all). */
  readonly handler: { readonly type: 'file'; readonly path: string; readonly maxsizemb: number; readonly maxbackups: number } | { readonly type: 'stdout' };
}

/** Raft timing and snapshot policy, in milliseconds and entries. */
export interface RaftOptions {
  readonly electionTimeoutMs: number;
  readonly heartbeatTimeoutMs: number;
  readonly commitTimeoutMs: number;
  readonly snapshotIntervalMs: number;
  readonly snapshotThreshold: number;
  readonly trailingLogs: number;
  /** A snapshot as soon as the log since the last holds this many entries or bytes (unset: the interval alone). */
  readonly snapshotLogEntries?: number;
  readonly snapshotLogBytes?: number;
  /** Run the raft node, its log and the peer channels on a thread of their own (`cluster.raftThread`). */
  readonly ownThread?: boolean;
}

export const defaultRaftOptions: RaftOptions = {
  electionTimeoutMs: 1000,
  heartbeatTimeoutMs: 200,
  commitTimeoutMs: 5000,
  snapshotIntervalMs: 120_000,
  snapshotThreshold: 500,
  trailingLogs: 500,
};

/** The control listener other controllers dial, and how its channels are watched. */
export interface ClusterOptions {
  /** `tls:<host>:<port>` advertised to peers. */
  readonly address: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly trustDomain: string;
  readonly preferredLeader: boolean;
  readonly warnWhenLeaderlessForMs: number;
  readonly heartbeat: { readonly sendIntervalMs: number; readonly checkIntervalMs: number; readonly closeUnresponsiveTimeoutMs: number };
  /** TLS for peer channels (this controller's identity). */
  readonly tls: TlsMaterial;
  /** `cluster.allowJoinRequests`: members add a controller that asks to join (default false). */
  readonly allowJoinRequests?: boolean;
  /** `ctrl.options` limits before a connection is known (defaults: defaultControlPortLimits). */
  readonly controlPort?: ControlPortLimits;
}

export interface ControllerOptions {
  readonly id: string;
  readonly dataDir: string;
  readonly raft: RaftOptions;
  readonly cluster: ClusterOptions;
  readonly webs: readonly WebListener[];
  /** One-time enrollment: the CA that signs enrolled clients' and routers' certificates (ott and erott need it) and token lifetimes (routers: 180 min when unset). */
  readonly enrollment?: { readonly signer?: { readonly certPem: string; readonly keyPem: string }; readonly identityDurationMs: number; readonly routerDurationMs?: number };
  /** TOTP: the issuer in provisioning URLs, and the key file that seals secrets (`<dataDir>/mfa.key` when unset); the wrong codes an identity may give before a lockout of lockoutMs (5 and 15 min when unset). */
  readonly totp?: { readonly hostname: string; readonly secretKeyFile?: string; readonly maxFailedCodes?: number; readonly lockoutMs?: number };
  /** Refused authentication attempts per client address and per user, on this controller (defaultLoginThrottleLimits when unset). */
  readonly authThrottle?: LoginThrottleLimits;
  /** Password hashes running at once and waiting (defaultHashQueueLimits when unset). */
  readonly passwordHashing?: HashQueueLimits;
  /** External JWT signers: JWKS endpoints may resolve to loopback, link-local and private addresses (false when unset). */
  readonly extJwt?: { readonly allowPrivateJwksAddresses: boolean };
  /** OIDC login and tokens (on, with OpenZiti's lifetimes and a daily key rotation, when unset). */
  readonly oidc?: OidcOptions;
  readonly sessionTimeoutMs: number;
  readonly activityUpdateIntervalMs: number;
  readonly activityUpdateBatchSize: number;
  readonly events: readonly EventHandlerOptions[];
  readonly agentSocket: string;
  /** `cluster.backup`: scheduled online backups of the model (none when unset, or with intervalMs 0). */
  readonly backup?: BackupOptions;
}

export interface BackupOptions {
  /** 0: no schedule. */
  readonly intervalMs: number;
  /** Where scheduled backups are written (`<dataDir>/backups` by default). */
  readonly dir: string;
  /** Scheduled backups kept; older `model-*.json` files in `dir` are deleted. */
  readonly retain: number;
}

export interface OidcOptions {
  readonly enabled: boolean;
  readonly accessTokenMs: number;
  readonly refreshTokenMs: number;
  readonly idTokenMs: number;
  readonly keyRotationMs: number;
}
