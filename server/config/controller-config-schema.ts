// The controller's `v: 3` YAML file as a schema: bounds, defaults and the relations between keys. The schema is
// ours alone, so unknown keys are errors (the router file, which carries foreign keys, only warns).

import { join } from 'node:path';
import { s } from '../../common/config/schema.ts';
import { formatHostPort } from '../../common/config/address.ts';
import type { HostPort, Infer, Loose, RuleFinding } from '../../common/config/schema.ts';
import { eventsSchema } from './event-config.ts';
import { otlpEndpointProblem } from './otlp-endpoint.ts';

export const apiBindings = ['edge-client', 'edge-management', 'health-checks', 'metrics'] as const;
// Node refuses TLS 1.0/1.1 by default and so do we.
export const tlsVersions = ['TLS1.2', 'TLS1.3'] as const;

const identitySchema = s
  .object({
    cert: s.path().required(),
    key: s.path().required(),
    server_cert: s.path(),
    server_key: s.path(),
    ca: s.path().required(),
  })
  .transform((identity) => ({
    cert: identity.cert,
    key: identity.key,
    server_cert: identity.server_cert ?? identity.cert,
    server_key: identity.server_key ?? identity.key,
    ca: identity.ca,
  }));

const peerHeartbeatsSchema = s
  .object({
    sendInterval: s.duration({ min: '1s', max: '5m' }).default('10s'),
    checkInterval: s.duration({ min: '100ms', max: '1m' }).default('1s'),
    closeUnresponsiveTimeout: s.duration({ min: '1s', max: '1h' }).default('30s'),
  })
  .rule((hb) => (isAbove(hb.closeUnresponsiveTimeout, hb.sendInterval) ? [] : [
    {
      path: ['closeUnresponsiveTimeout'],
      rule: 'close-above-send',
      message: 'must be greater than sendInterval, or healthy peers are closed between heartbeats',
      value: hb.closeUnresponsiveTimeout,
    },
  ]));

const ctrlSchema = s.object({
  listener: s.address({ protocols: ['tls'] }).required(),
  options: s
    .object(
      {
        peerHeartbeatOptions: peerHeartbeatsSchema.default({}),
        // What other controllers dial, when it differs from the listener (0.0.0.0, NAT, a proxy).
        advertiseAddress: s.address({ protocols: ['tls'] }),
        // Before a connection is known (controller or router): its TLS handshake, then a small first frame (the
        // hello) in time, and at most so many connections open from one address (docs/config-reference.md).
        handshakeTimeout: s.duration({ min: '100ms', max: '5m' }).default('10s'),
        helloTimeout: s.duration({ min: '100ms', max: '5m' }).default('10s'),
        maxHelloBytes: s.integer({ min: 1024, max: 1024 * 1024 }).default(8192),
        maxConnectionsPerSource: s.integer({ min: 1, max: 100_000 }).default(128),
      },
      { aliases: { peerHeartbeats: 'peerHeartbeatOptions' } },
    )
    .default({}),
});

/** A scheduled backup interval: 0 (the schedule off) or at least 1 s. */
function backupIntervalRule(value: number): RuleFinding[] {
  return value === 0 || value >= 1000 ? [] : [{ rule: 'min', message: 'must be 0s (no schedule) or at least 1s', value }];
}

// Online backups of the model on a schedule (server/controller/backup-schedule.ts); `dir` defaults to
// <cluster.dataDir>/backups, filled in by the top-level transform below.
const backupSchema = s.object({
  interval: s.duration({ min: 0, max: '8760h' }).rule(backupIntervalRule).default('6h'),
  dir: s.path().describe('the directory scheduled backups are written to'),
  retain: s.integer({ min: 1, max: 10_000 }).default(8),
});

const clusterSchema = s
  .object({
    dataDir: s.path().describe('the directory for the raft log, snapshots and model database').required(),
    snapshotInterval: s.duration({ min: '10s', max: '24h' }).default('2m'),
    snapshotThreshold: s.integer({ min: 1, max: 10_000_000 }).default(500),
    trailingLogs: s.integer({ min: 0, max: 10_000_000 }).default(500),
    // Bounds on the raft log held in memory between snapshots (docs/operator-guide.md, "Disk and memory").
    snapshotLogEntries: s.integer({ min: 1000, max: 10_000_000 }).default(100_000),
    snapshotLogBytes: s.integer({ min: 1_048_576, max: 4_294_967_296 }).default(67_108_864),
    warnWhenLeaderlessFor: s.duration({ min: '10s', max: '24h' }).default('1m'),
    preferredLeader: s.boolean().default(false),
    // Members add a new controller that asks them to (OpenZiti's self-join); off: only a member adds controllers.
    allowJoinRequests: s.boolean().default(false),
    electionTimeout: s.duration({ min: '100ms', max: '1m' }).default('1s'),
    heartbeatTimeout: s.duration({ min: '10ms', max: '10s' }).default('200ms'),
    commitTimeout: s.duration({ min: '10ms', max: '1m' }).default('5s'),
    // The raft node, its log and the peer channels on a thread of their own (docs/raft.md, "The raft thread").
    raftThread: s.boolean().default(false),
    backup: backupSchema.default({}),
  })
  .rule((cluster) => (isAbove(cluster.electionTimeout, cluster.heartbeatTimeout) ? [] : [
    {
      path: ['electionTimeout'],
      rule: 'election-above-heartbeat',
      message: 'must be greater than heartbeatTimeout, or followers start elections while the leader is healthy',
      value: cluster.electionTimeout,
    },
  ]));

const enrollmentDuration = s.object({ duration: s.duration({ min: '1m', max: '720h' }).default('180m') }).default({});

const edgeSchema = s.object({
  api: s
    .object({
      sessionTimeout: s.duration({ min: '1m', max: '168h' }).default('30m'),
      // How often in-memory session activity is flushed to the cluster as one command.
      activityUpdateInterval: s.duration({ min: '100ms', max: '10m' }).default('90s'),
      activityUpdateBatchSize: s.integer({ min: 1, max: 10_000 }).default(250),
    })
    .rule((api) => (isAbove(api.sessionTimeout, api.activityUpdateInterval) ? [] : [
      {
        path: ['activityUpdateInterval'],
        rule: 'activity-below-session-timeout',
        message: 'must be less than sessionTimeout, or active sessions expire before their activity is recorded',
        value: api.activityUpdateInterval,
      },
    ]))
    .default({}),
  enrollment: s
    .object({
      signingCert: s.object({ cert: s.path().required(), key: s.path().required() }),
      edgeIdentity: enrollmentDuration,
      edgeRouter: enrollmentDuration,
    })
    .default({}),
  totp: s
    .object({
      hostname: s
        .string({ pattern: /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/, patternMessage: 'must be a host name such as edgeward.local' })
        .default('edgeward.local'),
      secretKeyFile: s.path().describe('the 32-byte key that seals TOTP secrets; every controller of a cluster needs the same one'),
      // Wrong TOTP or recovery codes before the identity is locked out for lockoutDuration, counted across the cluster.
      maxFailedCodes: s.integer({ min: 1, max: 100 }).default(5),
      lockoutDuration: s.duration({ min: '1s', max: '24h' }).default('15m'),
    })
    .default({}),
  // OIDC (served at /oidc wherever the client API is bound): token lifetimes and how often each controller makes a
  // new signing key. Retired keys verify until the longest token lifetime has passed.
  oidc: s
    .object({
      enabled: s.boolean().default(true),
      accessTokenDuration: s.duration({ min: '10s', max: '24h' }).default('30m'),
      refreshTokenDuration: s.duration({ min: '1m', max: '720h' }).default('24h'),
      idTokenDuration: s.duration({ min: '10s', max: '24h' }).default('30m'),
      keyRotation: s.duration({ min: '1m', max: '8760h' }).default('24h'),
    })
    .default({}),
  // Refused authentication attempts per client address and per user, counted on each controller (never replicated).
  authThrottle: s
    .object({
      enabled: s.boolean().default(true),
      window: s.duration({ min: '1s', max: '24h' }).default('5m'),
      maxFailuresPerAddress: s.integer({ min: 0, max: 1_000_000 }).default(50),
      maxFailuresPerUser: s.integer({ min: 0, max: 1_000_000 }).default(10),
      maxTrackedKeys: s.integer({ min: 100, max: 10_000_000 }).default(50_000),
    })
    .default({}),
  // External JWT signers' JWKS endpoints: public addresses only unless the operator allows private ones.
  extJwt: s
    .object({
      allowPrivateJwksAddresses: s.boolean().default(false),
    })
    .default({}),
  // scrypt's own bounded queue on libuv's thread pool, which the raft log's synced writes share; concurrency 0: unbounded.
  passwordHashing: s
    .object({
      concurrency: s.integer({ min: 0, max: 64 }).default(2),
      maxQueued: s.integer({ min: 0, max: 100_000 }).default(64),
    })
    .default({}),
});

const webSchema = s.object({
  name: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/, patternMessage: 'must be letters, digits, ".", "_" or "-"' }).required(),
  bindPoints: s
    .array(
      s.object({
        interface: s.hostPort().describe('the host:port to listen on').required(),
        address: s.hostPort().describe('the host:port clients use, advertised in URLs').required(),
      }),
      { minItems: 1 },
    )
    .required(),
  identity: identitySchema,
  options: s
    .object({
      idleTimeout: s.duration({ min: '100ms', max: '1h' }).default('5s'),
      readTimeout: s.duration({ min: '100ms', max: '1h' }).default('5s'),
      // At least the API's 10 s request deadline: a connection closed for silence while its answer is being
      // worked out would be dropped unanswered.
      writeTimeout: s.duration({ min: '10s', max: '1h' }).default('100s'),
      // Slow and idle clients: the whole request (headers and body) must arrive within requestTimeout, and the TLS
      // handshake within handshakeTimeout; past maxConnections a bind point closes new connections at once.
      requestTimeout: s.duration({ min: '1s', max: '1h' }).default('30s'),
      handshakeTimeout: s.duration({ min: '100ms', max: '5m' }).default('10s'),
      maxConnections: s.integer({ min: 1, max: 1_000_000 }).default(4096),
      minTLSVersion: s.string({ enum: tlsVersions }).default('TLS1.2'),
      maxTLSVersion: s.string({ enum: tlsVersions }).default('TLS1.3'),
      maxBodyBytes: s.integer({ min: 1024, max: 64 * 1024 * 1024 }).default(1_048_576),
    })
    .rule((options) =>
      options.minTLSVersion !== undefined && options.maxTLSVersion !== undefined && options.minTLSVersion > options.maxTLSVersion
        ? [{ path: ['minTLSVersion'], rule: 'tls-version-order', message: `must not be above maxTLSVersion (${options.maxTLSVersion})`, value: options.minTLSVersion }]
        : [],
    )
    .rule((options) =>
      isAbove(options.readTimeout, options.requestTimeout)
        ? [{ path: ['requestTimeout'], rule: 'request-covers-headers', message: `must not be below readTimeout (${options.readTimeout} ms): the headers are part of the request`, value: options.requestTimeout }]
        : [],
    )
    .default({}),
  apis: s.array(s.object({ binding: s.string({ enum: apiBindings }).required(), options: s.object({}).default({}) }), { minItems: 1 }).required(),
});

/** `telemetry.otlp.endpoint` (otlp-endpoint.ts). */
function otlpEndpointRule(value: string): RuleFinding[] {
  const problem = otlpEndpointProblem(value);
  return problem === undefined ? [] : [{ rule: 'url', message: problem, value }];
}

// Traces over OTLP/HTTP (JSON): off unless an endpoint is set here or in the standard OTEL_EXPORTER_OTLP_* variables.
const telemetrySchema = s.object({
  serviceName: s.string({ pattern: /^[A-Za-z0-9][\w.-]*$/, patternMessage: 'must be letters, digits, ".", "_" or "-"' }).default('edgeward-controller'),
  otlp: s.object({
    endpoint: s.string({ minLength: 1 }).rule(otlpEndpointRule).describe('the collector\'s OTLP/HTTP base URL; traces go to <endpoint>/v1/traces').required(),
    headers: s.record(s.string(), { keyPattern: /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, label: 'headers' }).default({}),
    timeout: s.duration({ min: '100ms', max: '1m' }).default('10s'),
  }),
});

type WebEntry = Loose<Infer<typeof webSchema>>;

/** Across all web entries: names are unique, each API is served once, and no two bind points share a port. */
function webRelations(webs: readonly (WebEntry | undefined)[]): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const names = new Map<string, number>();
  const bindings = new Map<string, number>();
  const interfaces: { at: string; hostPort: HostPort }[] = [];
  webs.forEach((web, i) => {
    if (web === undefined) return;
    if (web.name !== undefined) {
      const first = names.get(web.name);
      if (first === undefined) names.set(web.name, i);
      else findings.push({ path: [i, 'name'], rule: 'unique-name', message: `"${web.name}" is already the name of web[${first}]`, value: web.name });
    }
    web.apis?.forEach((api, j) => {
      if (api?.binding === undefined) return;
      const first = bindings.get(api.binding);
      if (first === undefined) bindings.set(api.binding, i);
      else findings.push({ path: [i, 'apis', j, 'binding'], rule: 'unique-binding', message: `"${api.binding}" is already bound by web[${first}]; an API is served by one web entry`, value: api.binding });
    });
    web.bindPoints?.forEach((point, j) => {
      const host = point?.interface?.host;
      const port = point?.interface?.port;
      if (host === undefined || port === undefined) return;
      const clash = interfaces.find((other) => other.hostPort.port === port && overlaps(other.hostPort.host, host));
      if (clash) findings.push({ path: [i, 'bindPoints', j, 'interface'], rule: 'unique-interface', message: `port ${port} is already bound by ${clash.at}`, value: formatHostPort({ host, port }) });
      else interfaces.push({ at: `web[${i}].bindPoints[${j}]`, hostPort: { host, port } });
    });
  });
  return findings;
}

/** Two listeners on one port collide when they name the same host or either listens on every address. */
function overlaps(a: string, b: string): boolean {
  const wildcard = (host: string) => host === '0.0.0.0' || host === '::';
  return a === b || wildcard(a) || wildcard(b);
}

function isAbove(larger: number | undefined, smaller: number | undefined): boolean {
  return larger === undefined || smaller === undefined || larger > smaller;
}

export const controllerSchema = s
  .object({
    v: s.integer({ enum: [3] }).describe('the config file version, the integer 3').required(),
    identity: identitySchema.required(),
    ctrl: ctrlSchema.required(),
    cluster: clusterSchema.required(),
    edge: edgeSchema.default({}),
    web: s.array(webSchema, { minItems: 1 }).rule(webRelations).required(),
    events: eventsSchema.default({}),
    log: s.object({ level: s.string({ enum: ['debug', 'info', 'warn', 'error'] }).default('info'), file: s.path() }).default({}),
    agent: s.object({ socket: s.path() }).default({}),
    telemetry: telemetrySchema.default({}),
  })
  .transform((config) => ({
    ...config,
    cluster: { ...config.cluster, backup: { ...config.cluster.backup, dir: config.cluster.backup.dir ?? join(config.cluster.dataDir, 'backups') } },
    agent: { socket: config.agent.socket ?? join(config.cluster.dataDir, 'agent.sock') },
  }));
