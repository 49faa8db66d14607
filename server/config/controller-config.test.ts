import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatProblems } from '../../common/config/format-problems.ts';
import type { Infer } from '../../common/config/schema.ts';
import { parseControllerConfig } from './controller-config.ts';
import type { ConfigProblem, ControllerConfig } from './controller-config.ts';
import type { controllerSchema } from './controller-config-schema.ts';

const file = '/etc/edgeward/ctrl.yml';

// The hand-written type and the schema's inferred type must describe the same values.
type Inferred = Infer<typeof controllerSchema>;
type SameShape = [ControllerConfig] extends [Inferred] ? ([Inferred] extends [ControllerConfig] ? true : false) : false;
const typeMatchesSchema: SameShape = true;

/** A small valid file; tests splice lines into it. Line numbers are 1-based positions in this list. */
const minimal = [
  'v: 3', //                                 1
  'identity:', //                            2
  '  cert: pki/ctrl.cert.pem', //            3
  '  key: pki/ctrl.key.pem', //              4
  '  ca: pki/ca-bundle.pem', //              5
  'ctrl:', //                                6
  '  listener: tls:127.0.0.1:6262', //       7
  'cluster:', //                             8
  '  dataDir: ./data', //                    9
  'web:', //                                 10
  '  - name: client-management', //          11
  '    bindPoints:', //                      12
  '      - interface: 127.0.0.1:1280', //    13
  '        address: localhost:1280', //      14
  '    apis:', //                            15
  '      - binding: edge-client', //         16
  '      - binding: edge-management', //     17
];

function parse(lines: readonly string[], env: Record<string, string | undefined> = {}) {
  return parseControllerConfig(lines.join('\n'), { file, env });
}

/** `[line, path, rule]` for each problem, the way a user would scan the output. */
function where(problems: readonly ConfigProblem[]): [number | undefined, string, string][] {
  return problems.map((p) => [p.line, p.path, p.rule]);
}

/** Replaces the line that starts with `prefix` (after indentation) by `replacement` lines. */
function edit(lines: readonly string[], prefix: string, ...replacement: string[]): string[] {
  const index = lines.findIndex((line) => line.trimStart().startsWith(prefix));
  assert.ok(index >= 0, `no line starts with ${prefix}`);
  return [...lines.slice(0, index), ...replacement, ...lines.slice(index + 1)];
}

describe('parseControllerConfig: a valid file', () => {
  it('fills every default and parses durations, addresses and paths', () => {
    const { config, problems } = parse(minimal);
    assert.deepEqual(problems, []);
    assert.ok(typeMatchesSchema);
    const expected: ControllerConfig = {
      v: 3,
      identity: {
        cert: '/etc/edgeward/pki/ctrl.cert.pem',
        key: '/etc/edgeward/pki/ctrl.key.pem',
        server_cert: '/etc/edgeward/pki/ctrl.cert.pem',
        server_key: '/etc/edgeward/pki/ctrl.key.pem',
        ca: '/etc/edgeward/pki/ca-bundle.pem',
      },
      ctrl: {
        listener: { protocol: 'tls', host: '127.0.0.1', port: 6262 },
        options: {
          peerHeartbeatOptions: { sendInterval: 10_000, checkInterval: 1_000, closeUnresponsiveTimeout: 30_000 },
          handshakeTimeout: 10_000,
          helloTimeout: 10_000,
          maxHelloBytes: 8192,
          maxConnectionsPerSource: 128,
        },
      },
      cluster: {
        dataDir: '/etc/edgeward/data',
        snapshotInterval: 120_000,
        snapshotThreshold: 500,
        trailingLogs: 500,
        snapshotLogEntries: 100_000,
        snapshotLogBytes: 67_108_864,
        warnWhenLeaderlessFor: 60_000,
        preferredLeader: false,
        allowJoinRequests: false,
        electionTimeout: 1_000,
        heartbeatTimeout: 200,
        commitTimeout: 5_000,
        raftThread: false,
        backup: { interval: 21_600_000, dir: '/etc/edgeward/data/backups', retain: 8 },
      },
      edge: {
        api: { sessionTimeout: 1_800_000, activityUpdateInterval: 90_000, activityUpdateBatchSize: 250 },
        enrollment: { edgeIdentity: { duration: 10_800_000 }, edgeRouter: { duration: 10_800_000 } },
        totp: { hostname: 'edgeward.local', maxFailedCodes: 5, lockoutDuration: 900_000 },
        authThrottle: { enabled: true, window: 300_000, maxFailuresPerAddress: 50, maxFailuresPerUser: 10, maxTrackedKeys: 50_000 },
        passwordHashing: { concurrency: 2, maxQueued: 64 },
        extJwt: { allowPrivateJwksAddresses: false },
        oidc: { enabled: true, accessTokenDuration: 1_800_000, refreshTokenDuration: 86_400_000, idTokenDuration: 1_800_000, keyRotation: 86_400_000 },
      },
      web: [
        {
          name: 'client-management',
          bindPoints: [{ interface: { host: '127.0.0.1', port: 1280 }, address: { host: 'localhost', port: 1280 } }],
          options: { idleTimeout: 5_000, readTimeout: 5_000, writeTimeout: 100_000, requestTimeout: 30_000, handshakeTimeout: 10_000, maxConnections: 4096, minTLSVersion: 'TLS1.2', maxTLSVersion: 'TLS1.3', maxBodyBytes: 1_048_576 },
          apis: [
            { binding: 'edge-client', options: {} },
            { binding: 'edge-management', options: {} },
          ],
        },
      ],
      events: {},
      log: { level: 'info' },
      agent: { socket: '/etc/edgeward/data/agent.sock' },
      telemetry: { serviceName: 'edgeward-controller' },
    };
    assert.deepEqual(config, expected);
  });

  it('returns a deep-frozen config', () => {
    const { config } = parse(minimal);
    assert.ok(config);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.web[0]!.bindPoints[0]!.interface));
    assert.throws(() => {
      (config.cluster as { dataDir: string }).dataDir = '/tmp';
    }, TypeError);
  });

  it('substitutes environment variables in string values', () => {
    const lines = edit(edit(minimal, 'dataDir:', '  dataDir: ${DATA}/raft'), 'listener:', '  listener: tls:$CTRL_HOST:6262');
    const { config, problems } = parse(lines, { DATA: '/var/lib/edgeward', CTRL_HOST: '10.1.2.3' });
    assert.deepEqual(problems, []);
    assert.equal(config?.cluster.dataDir, '/var/lib/edgeward/raft');
    assert.deepEqual(config?.ctrl.listener, { protocol: 'tls', host: '10.1.2.3', port: 6262 });
    assert.equal(config?.agent.socket, '/var/lib/edgeward/raft/agent.sock');
  });

  it('reports what an unset variable leaves behind', () => {
    const { config, problems } = parse(edit(minimal, 'dataDir:', '  dataDir: ${DATA}'), {});
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [[9, 'cluster.dataDir', 'path']]);
  });

  it('accepts the peerHeartbeats alias under ctrl.options', () => {
    const lines = edit(minimal, 'listener:', '  listener: tls:127.0.0.1:6262', '  options:', '    peerHeartbeats:', '      sendInterval: 5s', '      closeUnresponsiveTimeout: 1m');
    const { config, problems } = parse(lines);
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.ctrl.options.peerHeartbeatOptions, { sendInterval: 5_000, checkInterval: 1_000, closeUnresponsiveTimeout: 60_000 });
  });

  it('rejects setting both peerHeartbeats and peerHeartbeatOptions', () => {
    const lines = edit(minimal, 'listener:', '  listener: tls:127.0.0.1:6262', '  options:', '    peerHeartbeatOptions: {}', '    peerHeartbeats: {}');
    assert.deepEqual(where(parse(lines).problems), [[10, 'ctrl.options.peerHeartbeats', 'alias-conflict']]);
  });

  it('defaults server_cert/server_key to cert/key and honours explicit ones', () => {
    const lines = edit(minimal, 'ca:', '  ca: pki/ca-bundle.pem', '  server_cert: /srv/server.pem', '  server_key: /srv/server.key');
    const identity = parse(lines).config?.identity;
    assert.equal(identity?.server_cert, '/srv/server.pem');
    assert.equal(identity?.server_key, '/srv/server.key');
    assert.equal(identity?.cert, '/etc/edgeward/pki/ctrl.cert.pem');
  });

  it('accepts a per-web identity, options and IPv6 bind points', () => {
    const lines = edit(
      minimal,
      '- interface:',
      '      - interface: "[::]:1280"',
      '        address: "[2001:db8::1]:1280"',
      '    identity: { cert: web.pem, key: web.key, ca: ca.pem }',
      '    options: { readTimeout: 10s, minTLSVersion: TLS1.3, maxBodyBytes: 4096 }',
    );
    const { config, problems } = parse(edit(lines, 'address: localhost'));
    assert.deepEqual(problems, []);
    const web = config!.web[0]!;
    assert.deepEqual(web.bindPoints[0], { interface: { host: '::', port: 1280 }, address: { host: '2001:db8::1', port: 1280 } });
    assert.equal(web.identity?.server_cert, '/etc/edgeward/web.pem');
    assert.equal(web.options.readTimeout, 10_000);
    assert.equal(web.options.minTLSVersion, 'TLS1.3');
    assert.equal(web.options.maxBodyBytes, 4096);
  });

  it('reads event handlers, ignoring unknown subscription types with a warning', () => {
    const { config, problems } = parse([
      ...minimal,
      'events:', //                                 18
      '  jsonLogger:', //                           19
      '    subscriptions:', //                      20
      '      - type: cluster', //                   21
      '      - type: entityChange', //              22
      '        propagateAlways: "true"', //         23
      '        include: [identity, service]', //    24
      '      - type: metric', //                    25
      '      - type: edge.apiSessions', //          26
      '      - type: metrics', //                   27
      '        metricFilter: "^peer\\\\."', //      28
      '    handler:', //                            29
      '      type: file', //                        30
      '      format: JSON', //                      31
      '      path: logs/events.jsonl', //           32
      '  console:', //                              33
      '    subscriptions: [ { type: authentication } ]',
      '    handler: { type: stdout, format: json }',
    ]);
    assert.deepEqual(where(problems), [[25, 'events.jsonLogger.subscriptions[2].type', 'unknown-type']]);
    assert.equal(problems[0]!.severity, 'warning');
    assert.match(problems[0]!.message, /unknown subscription type "metric" \(did you mean "metrics"\?\)/);
    assert.deepEqual(config?.events, {
      jsonLogger: {
        subscriptions: [
          { type: 'cluster' },
          { type: 'entityChange', propagateAlways: true, include: ['identity', 'service'] },
          { type: 'apiSession', propagateAlways: false, include: [] },
          { type: 'metrics', metricFilter: '^peer\\.' },
        ],
        handler: { type: 'file', format: 'json', path: '/etc/edgeward/logs/events.jsonl', maxsizemb: 10, maxbackups: 0, bufferSize: 10 },
      },
      console: { subscriptions: [{ type: 'authentication', include: [] }], handler: { type: 'stdout', format: 'json', bufferSize: 10 } },
    });
  });
});

describe('parseControllerConfig: apiSession subscriptions', () => {
  it('take include (created, deleted; refreshed, exchanged, revoked for OIDC sessions) and propagateAlways; another event type is an error with its line', () => {
    const lines = [...minimal, 'events:', '  sessions:', '    subscriptions:', '      - type: edge.apiSessions', '        include: [deleted]', '        propagateAlways: true', '    handler: { type: stdout, format: json }'];
    const { config, problems } = parse(lines);
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.events.sessions?.subscriptions, [{ type: 'apiSession', propagateAlways: true, include: ['deleted'] }]);
    const oidc = parse(edit(lines, 'include:', '        include: [refreshed, exchanged, revoked]'));
    assert.deepEqual(oidc.problems, []);
    assert.deepEqual(oidc.config?.events.sessions?.subscriptions[0], { type: 'apiSession', propagateAlways: true, include: ['refreshed', 'exchanged', 'revoked'] });
    const bad = parse(edit(lines, 'include:', '        include: [created, updated]'));
    assert.equal(bad.config, undefined);
    assert.deepEqual(where(bad.problems), [[minimal.length + 5, 'events.sessions.subscriptions[0].include[1]', 'enum']]);
  });
});

describe('parseControllerConfig: problems', () => {
  it('rejects the string "3" for v, and any other version', () => {
    const asString = parse(edit(minimal, 'v:', 'v: "3"'));
    assert.equal(asString.config, undefined);
    assert.deepEqual(where(asString.problems), [[1, 'v', 'type']]);
    assert.equal(asString.problems[0]!.message, 'must be an integer, got string "3"');
    assert.deepEqual(where(parse(edit(minimal, 'v:', 'v: 2')).problems), [[1, 'v', 'enum']]);
    assert.deepEqual(where(parse(edit(minimal, 'v:')).problems), [[undefined, 'v', 'required']]);
  });

  it('reports five mistakes as five errors with their lines', () => {
    let lines = edit(minimal, 'listener:', '  listener: tcp:127.0.0.1:6262'); //         6: only tls (after key is removed)
    lines = edit(lines, 'dataDir:', '  dataDir: ./data', '  snapshotThreshold: 0'); //   9: below 1
    lines = edit(lines, 'address:', '        address: localhost'); //                   14: no port
    lines = edit(lines, 'key:'); //                                                       identity.key missing (line 2)
    lines = [...lines, 'log: { level: verbose }']; //                                     18: not a level
    const { config, problems } = parse(lines);
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [
      [2, 'identity.key', 'required'],
      [6, 'ctrl.listener', 'address'],
      [9, 'cluster.snapshotThreshold', 'min'],
      [14, 'web[0].bindPoints[0].address', 'address'],
      [18, 'log.level', 'enum'],
    ]);
    assert.ok(problems.every((p) => p.severity === 'error'));
    assert.equal(
      formatProblems(problems, file),
      [
        '/etc/edgeward/ctrl.yml:2: error: identity.key: is required (rule: required)',
        '/etc/edgeward/ctrl.yml:6: error: ctrl.listener: "tcp:127.0.0.1:6262": protocol "tcp" is not allowed here (allowed: tls) (rule: address)',
        '/etc/edgeward/ctrl.yml:9: error: cluster.snapshotThreshold: must be at least 1 (rule: min)',
        '/etc/edgeward/ctrl.yml:14: error: web[0].bindPoints[0].address: "localhost": missing port; expected <host>:<port> (rule: address)',
        '/etc/edgeward/ctrl.yml:18: error: log.level: must be one of: debug, info, warn, error (rule: enum)',
      ].join('\n'),
    );
  });

  it('reports an empty file as each missing section', () => {
    assert.deepEqual(where(parse(['# nothing']).problems), [
      [undefined, 'v', 'required'],
      [undefined, 'identity', 'required'],
      [undefined, 'ctrl', 'required'],
      [undefined, 'cluster', 'required'],
      [undefined, 'web', 'required'],
    ]);
  });

  it('rejects unknown keys anywhere, suggesting the likely one', () => {
    const lines = edit(edit(minimal, 'dataDir:', '  dataDir: ./data', '  snapshotInterval: 2m', '  snapshotintervall: 5m'), 'v:', 'v: 3', 'version: 3');
    const { problems } = parse(lines);
    assert.deepEqual(where(problems), [
      [2, 'version', 'unknown-key'],
      [12, 'cluster.snapshotintervall', 'unknown-key'],
    ]);
    assert.ok(problems.every((p) => p.severity === 'error'));
    assert.match(problems[1]!.message, /did you mean "snapshotInterval"/);
  });

  it('holds a bare 0 to a duration minimum', () => {
    const lines = edit(minimal, 'dataDir:', '  dataDir: ./data', '  electionTimeout: 0', '  heartbeatTimeout: 0');
    const { config, problems } = parse(lines);
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [
      [10, 'cluster.electionTimeout', 'min'],
      [11, 'cluster.heartbeatTimeout', 'min'],
    ]);
  });

  it('requires the election timeout to be above the heartbeat timeout', () => {
    const lines = edit(minimal, 'dataDir:', '  dataDir: ./data', '  electionTimeout: 200ms', '  heartbeatTimeout: 200ms');
    const { problems } = parse(lines);
    assert.deepEqual(where(problems), [[10, 'cluster.electionTimeout', 'election-above-heartbeat']]);
    assert.equal(problems[0]!.value, 200);
  });

  it('requires closeUnresponsiveTimeout to be above the heartbeat send interval', () => {
    const lines = edit(minimal, 'listener:', '  listener: tls:127.0.0.1:6262', '  options:', '    peerHeartbeats: { sendInterval: 30s, closeUnresponsiveTimeout: 30s }');
    assert.deepEqual(where(parse(lines).problems), [[9, 'ctrl.options.peerHeartbeats.closeUnresponsiveTimeout', 'close-above-send']]);
  });

  it('requires session activity to be flushed more often than sessions time out', () => {
    const { problems } = parse([...minimal, 'edge:', '  api:', '    sessionTimeout: 1m', '    activityUpdateInterval: 2m']);
    assert.deepEqual(where(problems), [[21, 'edge.api.activityUpdateInterval', 'activity-below-session-timeout']]);
  });

  it('checks duration bounds and syntax', () => {
    const { problems } = parse([
      ...minimal,
      'edge:',
      '  api:',
      '    sessionTimeout: 30s', //                   20: below 1m
      '    activityUpdateInterval: 90', //           21: no unit
      '  enrollment:',
      '    edgeIdentity: { duration: 31d }', //      23: no such unit
      '    edgeRouter: { duration: 721h }', //       24: above 30 days
    ]);
    assert.deepEqual(where(problems), [
      [20, 'edge.api.sessionTimeout', 'min'],
      [21, 'edge.api.activityUpdateInterval', 'type'],
      [23, 'edge.enrollment.edgeIdentity.duration', 'duration'],
      [24, 'edge.enrollment.edgeRouter.duration', 'max'],
    ]);
    assert.equal(problems[0]!.message, 'must be at least 1m');
    assert.equal(problems[3]!.message, 'must be at most 720h');
  });

  it('rejects an API binding served twice, even across web entries', () => {
    const lines = [
      ...minimal,
      '  - name: second', //                          18
      '    bindPoints: [ { interface: "127.0.0.1:1281", address: "127.0.0.1:1281" } ]',
      '    apis:', //                                  20
      '      - binding: health-checks', //            21
      '      - binding: edge-client', //              22
      '      - binding: health-checks', //            23
    ];
    const { config, problems } = parse(lines);
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [
      [22, 'web[1].apis[1].binding', 'unique-binding'],
      [23, 'web[1].apis[2].binding', 'unique-binding'],
    ]);
    assert.equal(problems[0]!.message, '"edge-client" is already bound by web[0]; an API is served by one web entry');
  });

  it('rejects duplicate web names and bind points on the same port', () => {
    const lines = [
      ...minimal,
      '  - name: client-management', //                                   18
      '    bindPoints: [ { interface: "0.0.0.0:1280", address: "a:1280" } ]', // 19
      '    apis: [ { binding: metrics } ]',
    ];
    assert.deepEqual(where(parse(lines).problems), [
      [18, 'web[1].name', 'unique-name'],
      [19, 'web[1].bindPoints[0].interface', 'unique-interface'],
    ]);
  });

  it('requires non-empty web, bindPoints and apis lists, and known bindings', () => {
    const lines = edit(edit(minimal, 'bindPoints:', '    bindPoints: []'), '- interface:');
    const trimmed = edit(edit(lines, 'address:'), '- binding: edge-client', '      - binding: edge-admin');
    assert.deepEqual(where(parse(trimmed).problems), [
      [12, 'web[0].bindPoints', 'min-items'],
      [14, 'web[0].apis[0].binding', 'enum'],
    ]);
    const noWeb = [...minimal.slice(0, 9), 'web: []'];
    assert.deepEqual(where(parse(noWeb).problems), [[10, 'web', 'min-items']]);
  });

  it('checks TLS versions are in order', () => {
    const lines = edit(minimal, 'apis:', '    options: { minTLSVersion: TLS1.3, maxTLSVersion: TLS1.2 }', '    apis:');
    assert.deepEqual(where(parse(lines).problems), [[15, 'web[0].options.minTLSVersion', 'tls-version-order']]);
  });

  it('checks event handler entries', () => {
    const { problems } = parse([
      ...minimal,
      'events:', //                                   18
      '  bad:', //                                    19
      '    subscriptions:', //                        20
      '      - cluster', //                           21: not a map
      '      - { type: entityChange, propagateAlways: maybe }', // 22
      '    handler:', //                              23
      '      type: file', //                          24: no format, no path
      '  alsoBad:', //                                25
      '    subscriptions: [ { type: cluster } ]', //  26
      '    handler: { type: amqp, format: plain }', // 27
    ]);
    assert.deepEqual(where(problems), [
      [21, 'events.bad.subscriptions[0]', 'type'],
      [22, 'events.bad.subscriptions[1].propagateAlways', 'type'],
      [23, 'events.bad.handler.format', 'required'],
      [23, 'events.bad.handler.path', 'required'],
      [27, 'events.alsoBad.handler.type', 'unknown-type'],
    ]);
    assert.equal(problems[0]!.message, 'subscription at index 0 is not a map');
    assert.equal(problems[4]!.severity, 'error');
  });

  it('rejects the plain event format OpenZiti documents but does not accept', () => {
    const { problems } = parse([...minimal, 'events:', '  out:', '    subscriptions: [ { type: cluster } ]', '    handler: { type: stdout, format: plain }']);
    assert.deepEqual(where(problems), [[21, 'events.out.handler.format', 'enum']]);
  });

  it('reports YAML syntax errors by line and nothing else', () => {
    const { config, problems } = parse(edit(minimal, 'cert:', '  cert: pki/ctrl.cert.pem', '  cert: again.pem'));
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [[4, '', 'yaml-syntax']]);
  });
});

describe('parseControllerConfig: telemetry', () => {
  it('takes an OTLP endpoint with headers and a timeout, and defaults them', () => {
    const lines = [...minimal, 'telemetry:', '  serviceName: edgeward-eu', '  otlp:', '    endpoint: https://collector.example:4318', '    headers:', '      authorization: Bearer ${OTLP_TOKEN}', '    timeout: 2s'];
    const { config, problems } = parse(lines, { OTLP_TOKEN: 'abc' });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.telemetry, { serviceName: 'edgeward-eu', otlp: { endpoint: 'https://collector.example:4318', headers: { authorization: 'Bearer abc' }, timeout: 2000 } });
    assert.deepEqual(parse([...minimal, 'telemetry:', '  otlp:', '    endpoint: http://127.0.0.1:4318']).config?.telemetry, {
      serviceName: 'edgeward-controller',
      otlp: { endpoint: 'http://127.0.0.1:4318', headers: {}, timeout: 10_000 },
    });
  });

  it('refuses endpoints that are not http(s) URLs, bad header names, unknown keys and a missing endpoint', () => {
    const bad = (...telemetry: string[]) => where(parse([...minimal, 'telemetry:', ...telemetry]).problems);
    assert.deepEqual(bad('  otlp:', '    endpoint: grpc://collector:4317'), [[20, 'telemetry.otlp.endpoint', 'url']]);
    assert.deepEqual(bad('  otlp:', '    endpoint: collector:4318'), [[20, 'telemetry.otlp.endpoint', 'url']]);
    assert.deepEqual(bad('  otlp:', '    endpoint: http://user:secret@collector:4318'), [[20, 'telemetry.otlp.endpoint', 'url']]);
    assert.deepEqual(bad('  otlp:', '    endpoint: http://collector:4318?x=1'), [[20, 'telemetry.otlp.endpoint', 'url']]);
    assert.deepEqual(bad('  otlp:', '    endpoint: http://collector:4318', '    headers:', '      "bad header": x'), [[22, 'telemetry.otlp.headers["bad header"]', 'key-pattern']]);
    assert.deepEqual(bad('  otlp:', '    endpoint: http://collector:4318', '    timeout: 5m'), [[21, 'telemetry.otlp.timeout', 'max']]);
    assert.deepEqual(bad('  otlp:', '    headers: {}'), [[19, 'telemetry.otlp.endpoint', 'required']]);
    assert.deepEqual(bad('  otlp:', '    endpoint: http://collector:4318', '    endpiont: x'), [[21, 'telemetry.otlp.endpiont', 'unknown-key']]);
  });
});

describe('parseControllerConfig: cluster.backup', () => {
  const withBackup = (...backup: string[]) => parse(edit(minimal, 'dataDir:', '  dataDir: ./data', '  backup:', ...backup));

  it('takes an interval, a folder (relative to the file) and how many to keep; 0s turns the schedule off', () => {
    const { config, problems } = withBackup('    interval: 30m', '    dir: /var/backups/edgeward', '    retain: 3');
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.cluster.backup, { interval: 1_800_000, dir: '/var/backups/edgeward', retain: 3 });
    assert.deepEqual(withBackup('    interval: 0s', '    dir: backups').config?.cluster.backup, { interval: 0, dir: '/etc/edgeward/backups', retain: 8 });
  });

  it('refuses an interval below 1s (other than 0), a retain below 1, a bad duration and unknown keys, each with its key path and line', () => {
    const { config, problems } = withBackup('    interval: 500ms', '    retain: 0', '    dir: ""', '    keep: 3');
    assert.equal(config, undefined);
    assert.deepEqual(where(problems), [
      [11, 'cluster.backup.interval', 'min'],
      [12, 'cluster.backup.retain', 'min'],
      [13, 'cluster.backup.dir', 'path'],
      [14, 'cluster.backup.keep', 'unknown-key'],
    ]);
    assert.equal(problems[0]!.message, 'must be 0s (no schedule) or at least 1s');
    assert.deepEqual(where(withBackup('    interval: 6 hours').problems), [[11, 'cluster.backup.interval', 'duration']]);
    assert.deepEqual(where(withBackup('    interval: 9000h').problems), [[11, 'cluster.backup.interval', 'max']]);
  });
});
