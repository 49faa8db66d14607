// A complete, commented controller config for demos, tests and `init`-style tooling. Every key is written with
// its default so the file doubles as documentation; the text is checked against the schema before it is returned.

import { parseAddress, parseHostPort } from '../../common/config/address.ts';
import { formatProblems } from '../../common/config/format-problems.ts';
import { hasErrors } from '../../common/config/problem.ts';
import { parseYamlConfig } from '../../common/config/parse-config.ts';
import { controllerSchema } from './controller-config-schema.ts';

export interface ExampleIdentityPaths {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
  readonly serverCert?: string;
  readonly serverKey?: string;
}

interface ExampleBase {
  /** Named in the header comment. */
  readonly id: string;
  readonly dataDir: string;
  /** `host:port` to listen on for the web APIs. */
  readonly webAddress: string;
  /** `host:port` put in URLs, when it differs from webAddress (e.g. listening on 0.0.0.0). */
  readonly webAdvertiseAddress?: string;
  /** `tls:host:port` (a bare `host:port` gets `tls:`). */
  readonly ctrlAddress: string;
  /** JSON-lines file the events handler writes (entity changes today; cluster events with the HA cluster); none when unset. */
  readonly eventsFile?: string;
  /** Entity change events written by every controller as it applies them, not only the leader (`propagateAlways:
   * true`): what the alerts daemon needs to compute each controller's commit lag. Default false. */
  readonly entityChangesFromEveryController?: boolean;
  /** Log file; stderr when unset. */
  readonly logFile?: string;
  /** Agent socket; `<dataDir>/agent.sock` when unset. */
  readonly agentSocket?: string;
  /** The CA (certificate and key) that signs enrolled clients' certificates; ott enrollment is off without it. */
  readonly signingCert?: { readonly cert: string; readonly key: string };
  /** The key file that seals TOTP secrets, shared by a cluster's controllers; `<dataDir>/mfa.key` when unset. */
  readonly totpSecretKeyFile?: string;
}

/** Certificate paths as `pkiPaths`, or under the config's own name `identity`. Absolute, or relative to the config file. */
export type ControllerConfigExampleOptions = ExampleBase &
  ({ readonly pkiPaths: ExampleIdentityPaths; readonly identity?: never } | { readonly identity: ExampleIdentityPaths; readonly pkiPaths?: never });

export function controllerConfigExample(options: ControllerConfigExampleOptions): string {
  const pki = options.pkiPaths ?? options.identity;
  const ctrlListener = parseHostPort(options.ctrlAddress).ok ? `tls:${options.ctrlAddress}` : options.ctrlAddress;
  if (!parseAddress(ctrlListener, ['tls']).ok) throw new Error(`controllerConfigExample: ctrlAddress "${options.ctrlAddress}" is not tls:<host>:<port>`);
  const q = (value: string): string => {
    // Env expansion has no escape for `$`, so such a value could never round-trip.
    if (value.includes('$')) throw new Error(`controllerConfigExample: "${value}" contains "$", which the config loader would expand`);
    return JSON.stringify(value); // a JSON string is a valid YAML double-quoted scalar
  };
  const optional = (key: string, value: string | undefined, indent: string, whenUnset: string): string =>
    value === undefined ? `${indent}# ${key}: ${whenUnset}` : `${indent}${key}: ${q(value)}`;

  const lines = [
    `# edgeward controller ${JSON.stringify(options.id)}: generated config; keys not marked otherwise show their defaults.`,
    `# Durations use Go syntax (500ms, 30s, 1m30s); "\${VAR}" in a value is replaced from the environment.`,
    'v: 3',
    '',
    'identity:',
    `  cert: ${q(pki.cert)}`,
    `  key: ${q(pki.key)}`,
    optional('server_cert', pki.serverCert, '  ', '(unset: same as cert)'),
    optional('server_key', pki.serverKey, '  ', '(unset: same as key)'),
    `  ca: ${q(pki.ca)}`,
    '',
    'ctrl:',
    `  listener: ${q(ctrlListener)}`,
    '  options:',
    '    peerHeartbeats: # OpenZiti\'s key; peerHeartbeatOptions is accepted too',
    '      sendInterval: 10s',
    '      checkInterval: 1s',
    '      closeUnresponsiveTimeout: 30s',
    '    # before a connection is known: TLS handshake, then a small first frame (the hello) in time',
    '    handshakeTimeout: 10s',
    '    helloTimeout: 10s',
    '    maxHelloBytes: 8192',
    '    maxConnectionsPerSource: 128 # open at once from one IP address (routers behind one NAT share one)',
    '',
    'cluster:',
    `  dataDir: ${q(options.dataDir)}`,
    '  snapshotInterval: 2m',
    '  snapshotThreshold: 500',
    '  trailingLogs: 500',
    '  snapshotLogEntries: 100000 # a snapshot as soon as this many entries arrived since the last (bounds the log in memory)',
    '  snapshotLogBytes: 67108864 # or as soon as they hold this many bytes (64 MiB)',
    '  warnWhenLeaderlessFor: 1m',
    '  preferredLeader: false',
    '  allowJoinRequests: false # true: a new controller may ask a member to add it (OpenZiti\'s self-join)',
    '  electionTimeout: 1s # must stay above heartbeatTimeout',
    '  heartbeatTimeout: 200ms',
    '  commitTimeout: 5s',
    '  backup: # online backups of the model on a schedule',
    '    interval: 6h # 0s: no schedule',
    '    # dir: <dataDir>/backups',
    '    retain: 8 # scheduled backups kept, the oldest deleted',
    '',
    'edge:',
    '  api:',
    '    sessionTimeout: 30m',
    '    activityUpdateInterval: 90s # session activity is flushed to the cluster this often',
    '    activityUpdateBatchSize: 250',
    '  enrollment:',
    ...(options.signingCert
      ? ['    signingCert: # the CA that signs enrolled clients\' certificates', `      cert: ${q(options.signingCert.cert)}`, `      key: ${q(options.signingCert.key)}`]
      : ['    # signingCert: {cert, key} of a CA: needed for ott enrollment']),
    '    edgeIdentity:',
    '      duration: 180m',
    '    edgeRouter:',
    '      duration: 180m',
    '  totp:',
    '    hostname: edgeward.local',
    optional('secretKeyFile', options.totpSecretKeyFile, '    ', '<dataDir>/mfa.key (created when missing; a cluster\'s controllers must share one)'),
    '    maxFailedCodes: 5 # wrong TOTP/recovery codes, counted across the cluster, before the identity is locked out',
    '    lockoutDuration: 15m',
    '  authThrottle: # refused logins, MFA codes and current passwords, counted on this controller',
    '    enabled: true',
    '    window: 5m',
    '    maxFailuresPerAddress: 50 # per window; then one more every window/50',
    '    maxFailuresPerUser: 10 # per username, or identity for MFA codes',
    '    maxTrackedKeys: 50000',
    '  passwordHashing: # scrypt on libuv\'s thread pool, which the raft log shares',
    '    concurrency: 2 # hashes at once; 0: unbounded',
    '    maxQueued: 64 # waiting; one more gets 429 RATE_LIMITED at once',
    '  extJwt:',
    '    allowPrivateJwksAddresses: false # true: JWKS endpoints may resolve to loopback, link-local or private addresses',
    '',
    'web:',
    '  - name: client-management',
    '    bindPoints:',
    `      - interface: ${q(options.webAddress)}`,
    `        address: ${q(options.webAdvertiseAddress ?? options.webAddress)}`,
    '    options:',
    '      idleTimeout: 5s',
    '      readTimeout: 5s',
    '      writeTimeout: 100s # a connection silent both ways this long is closed',
    '      requestTimeout: 30s # the whole request, headers and body',
    '      handshakeTimeout: 10s',
    '      maxConnections: 4096 # per bind point',
    '      minTLSVersion: TLS1.2',
    '      maxTLSVersion: TLS1.3',
    '      maxBodyBytes: 1048576',
    '    apis:',
    '      - binding: edge-client',
    '      - binding: edge-management',
    '      - binding: health-checks',
    '      - binding: metrics',
    '',
    ...eventsSection(options.eventsFile === undefined ? undefined : q(options.eventsFile), options.entityChangesFromEveryController ?? false),
    '',
    'log:',
    '  level: info',
    optional('file', options.logFile, '  ', '(unset: stderr)'),
    '',
    'agent:',
    optional('socket', options.agentSocket, '  ', '(unset: <cluster.dataDir>/agent.sock)'),
    '',
  ];
  const text = lines.join('\n');

  const { problems } = parseYamlConfig(controllerSchema, text, { file: '/controller-config-example.yml', env: {} });
  if (hasErrors(problems)) throw new Error(`controllerConfigExample produced an invalid config:\n${formatProblems(problems, 'example')}`);
  return text;
}

function eventsSection(quotedFile: string | undefined, propagateAlways: boolean): string[] {
  const body = [
    '  jsonLogger:',
    '    subscriptions:',
    '      - type: cluster',
    '      - type: entityChange',
    `        propagateAlways: ${propagateAlways}${propagateAlways ? ' # every controller writes the changes it applies (commit lag)' : ''}`,
    '      - type: apiSession',
    '      - type: authentication',
    '      - type: circuit',
    '    handler:',
    '      type: file',
    '      format: json',
    `      path: ${quotedFile ?? '/var/log/edgeward/events.jsonl'}`,
    '      maxsizemb: 10',
    '      maxbackups: 0',
    '      bufferSize: 10',
  ];
  if (quotedFile !== undefined) return ['events:', ...body];
  return ['# events: (none; an example handler)', ...body.map((line) => `#${line}`)];
}
