import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { parseRouterConfig } from './router-config.ts';
import type { ConfigProblem, RouterConfig } from './router-config.ts';
import { missingSectionConsequences } from './router-config-schema.ts';

const file = '/etc/edgeward/router.yml';
const base = ['v: 3', 'identity:', '  cert: certs/router.cert', '  key: certs/router.key', 'ctrl:', '  endpoint: tls:ctrl.example.com:6262'];
/** Every section present, so a test sees only the problems it provokes. */
const quiet = [
  'dialers:',
  '  - binding: transport',
  'edge:',
  '  csr:',
  '    sans:',
  '      dns: ["*.example.com"]',
  '      ip: ["2001:db8::1", "2001:db8::7"]',
  'link:',
  '  dialers:',
  '    - binding: transport',
  'listeners:',
  '  - binding: edge',
  '    address: tls:0.0.0.0:3022',
  '    options:',
  '      advertise: router.example.com:3022',
];

function parse(lines: readonly string[], env: Record<string, string> = {}) {
  return parseRouterConfig(lines.join('\n'), { file, env });
}

/** `line severity path rule` for each problem. */
function brief(problems: readonly ConfigProblem[]): string[] {
  return problems.map((p) => `${p.line ?? '-'} ${p.severity} ${p.path} ${p.rule}`);
}

function valid(lines: readonly string[], env: Record<string, string> = {}): RouterConfig {
  const { config, problems } = parse(lines, env);
  assert.deepEqual(problems.filter((p) => p.severity === 'error'), []);
  assert.ok(config);
  return config;
}

/** The config of `base` + `quiet` + the section given as data, and its problems. */
function withSection(data: Record<string, unknown>) {
  const others = quiet.filter((_, i, all) => !sectionAt(all, i, Object.keys(data)));
  const lines = [...base, ...others, ...stringify(data).trimEnd().split('\n')];
  return { lines, ...parse(lines) };
}

function sectionAt(lines: readonly string[], index: number, names: readonly string[]): boolean {
  for (let i = index; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.startsWith(' ')) return names.some((name) => line.startsWith(`${name}:`));
  }
  return false;
}

/** 1-based line of the first line containing `needle` at or after line `from`. */
function lineOf(lines: readonly string[], needle: string, from = 1): number {
  const index = lines.findIndex((line, i) => i >= from - 1 && line.includes(needle));
  assert.ok(index >= 0, `no line contains ${needle}`);
  return index + 1;
}

describe('router config: the smallest valid file', () => {
  it('needs only v, identity and ctrl, and fills every default', () => {
    const { config, problems } = parse(base);
    assert.ok(config);
    assert.deepEqual(config, {
      v: 3,
      identity: {
        cert: '/etc/edgeward/certs/router.cert',
        key: '/etc/edgeward/certs/router.key',
        server_cert: '/etc/edgeward/certs/router.cert',
        server_key: '/etc/edgeward/certs/router.key',
        alt_server_certs: [],
      },
      ctrl: {
        endpoints: [{ protocol: 'tls', host: 'ctrl.example.com', port: 6262 }],
        defaultRequestTimeout: 5000,
        heartbeats: { sendInterval: 10_000, checkInterval: 1000, closeUnresponsiveTimeout: 30_000 },
        options: {},
        endpointsFile: '/etc/edgeward/endpoints',
      },
      forwarder: {
        faultTxInterval: 15000,
        idleCircuitTimeout: 60000,
        idleTxInterval: 60000,
        linkDialQueueLength: 1000,
        linkDialWorkerCount: 32,
        rateLimitedQueueLength: 5000,
        rateLimitedWorkerCount: 5,
        xgressCloseCheckInterval: 5000,
        xgressDialDwellTime: 0,
        xgressDialQueueLength: 1000,
        xgressDialWorkerCount: 128,
        maxCircuits: 10_000,
        maxCircuitsPerIdentity: 1_000,
      },
      healthChecks: {
        ctrlPingCheck: { interval: 30_000, timeout: 15_000, initialDelay: 15_000 },
        linkCheck: { interval: 5000, initialDelay: 1000, minLinks: 0 },
      },
      metrics: { reportInterval: 60_000, messageQueueSize: 10, intervalAgeThreshold: 80_000 },
    });
    // The four optional sections the standard setup uses are missing: each consequence is a warning, nothing more,
    // at the document start (line 1) since the file has no line for what it lacks.
    assert.deepEqual(
      problems.map((p) => [p.line, p.severity, p.path, p.message]),
      [
        [1, 'warning', 'dialers', 'no dialers section: the router cannot terminate services'],
        [1, 'warning', 'edge', 'no edge section: fabric-only, no SDK connectivity and no edge functionality'],
        [1, 'warning', 'link', 'no link section: the router neither dials nor accepts other routers'],
        [1, 'warning', 'listeners', 'no listeners section: external on-ramp connections are not accepted'],
      ],
    );
  });

  it('reports each of ctrl, identity and v missing from an empty file, at line 1 with its key path', () => {
    const { config, problems } = parse(['# nothing yet']);
    assert.equal(config, undefined);
    assert.deepEqual(
      problems.filter((p) => p.severity === 'error').map((p) => [p.line, p.path, p.rule]),
      [
        [1, 'v', 'required'],
        [1, 'identity', 'required'],
        [1, 'ctrl', 'required'],
      ],
    );
    assert.ok(problems.every((p) => p.line !== undefined && p.path !== ''), 'every problem has a line and a key path');
  });

  it('deep-freezes the config', () => {
    const config = valid(base);
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.ctrl.endpoints) && Object.isFrozen(config.forwarder));
  });
});

describe('router config: v', () => {
  it('accepts only the integer 3', () => {
    for (const [text, rule, message] of [
      ['v: 2', 'enum', 'must be 3'],
      ['v: 4', 'enum', 'must be 3'],
      ['v: "3"', 'type', 'must be an integer, got string "3"'],
      ['v: 3.0.0', 'type', 'must be an integer, got string "3.0.0"'],
      // YAML reads these as the number 3; only the integer literal passes.
      ['v: 3.0', 'type', 'must be the integer 3, written 3; got 3.0'],
      ['v: 0x3', 'type', 'must be the integer 3, written 3; got 0x3'],
    ] as const) {
      const { config, problems } = parse([text, ...base.slice(1)]);
      assert.equal(config, undefined, text);
      assert.deepEqual(problems.filter((p) => p.severity === 'error').map((p) => [p.line, p.path, p.rule, p.message]), [[1, 'v', rule, message]], text);
    }
    const missing = parse(base.slice(1)).problems.find((p) => p.path === 'v');
    assert.equal(missing?.message, 'is required (the config file version, the integer 3)');
  });
});

describe('router config: identity', () => {
  it('requires cert and key, defaults server_cert/server_key to them, and keeps engine values as written', () => {
    const config = valid([
      'v: 3',
      'identity:',
      '  cert: file:/pki/client.pem',
      '  key: "pkcs11:///usr/lib/softhsm.so?id=01"',
      '  server_cert: server.pem',
      '  ca: "pem:-----BEGIN CERTIFICATE-----"',
      '  alt_server_certs:',
      '    - server_cert: alt.pem',
      '      server_key: alt.key',
      ...base.slice(4),
    ]);
    assert.deepEqual(config.identity, {
      cert: '/pki/client.pem',
      key: 'pkcs11:///usr/lib/softhsm.so?id=01',
      server_cert: '/etc/edgeward/server.pem',
      server_key: 'pkcs11:///usr/lib/softhsm.so?id=01',
      ca: 'pem:-----BEGIN CERTIFICATE-----',
      alt_server_certs: [{ server_cert: '/etc/edgeward/alt.pem', server_key: '/etc/edgeward/alt.key' }],
    });
  });

  it('reports missing cert and key, an incomplete alternate certificate and an empty engine value', () => {
    const { config, problems } = parse(['v: 3', 'identity:', '  server_cert: "file:"', '  alt_server_certs:', '    - server_cert: a.pem', ...base.slice(4)]);
    assert.equal(config, undefined);
    assert.deepEqual(brief(problems.filter((p) => p.severity === 'error')), [
      '2 error identity.cert required',
      '2 error identity.key required',
      '3 error identity.server_cert identity-source',
      '5 error identity.alt_server_certs[0].server_key required',
    ]);
  });
});

describe('router config: ctrl', () => {
  it('uses endpoint when both are given, and warns that endpoints is ignored', () => {
    const { config, problems } = parse([...base, '  endpoints:', '    - tls:other:6262', ...quiet]);
    assert.deepEqual(config?.ctrl.endpoints, [{ protocol: 'tls', host: 'ctrl.example.com', port: 6262 }]);
    assert.deepEqual(brief(problems), ['7 warning ctrl.endpoints endpoints-ignored']);
    assert.match(problems[0]!.message, /ignored because endpoint is set/);
  });

  it('takes the endpoints list when there is no endpoint, in order', () => {
    const config = valid([...base.slice(0, 5), '  endpoints: [tls:c1:6262, "tls:[2001:db8::2]:6262", wss:c3.example.com:443]', ...quiet]);
    assert.deepEqual(config.ctrl.endpoints, [
      { protocol: 'tls', host: 'c1', port: 6262 },
      { protocol: 'tls', host: '2001:db8::2', port: 6262 },
      { protocol: 'wss', host: 'c3.example.com', port: 443 },
    ]);
  });

  it('accepts neither (the endpoints file may supply them) with a warning', () => {
    const { config, problems } = parse([...base.slice(0, 5), '  endpointsFile: /var/lib/router/endpoints.yml', ...quiet]);
    assert.deepEqual(config?.ctrl.endpoints, []);
    assert.equal(config?.ctrl.endpointsFile, '/var/lib/router/endpoints.yml');
    assert.deepEqual(brief(problems), ['5 warning ctrl no-endpoints']);
    assert.match(problems[0]!.message, /only the controllers saved in endpointsFile/);
  });

  it('reads bind, defaultRequestTimeout, heartbeats and options, and resolves endpointsFile against the config dir', () => {
    const config = valid([
      ...base,
      '  bind: eth0',
      '  defaultRequestTimeout: 1m30s',
      '  heartbeats: { sendInterval: 20s, checkInterval: 2s, closeUnresponsiveTimeout: 2m }',
      '  options: { outQueueSize: 4, connectTimeoutMs: 5000 }',
      '  endpointsFile: state/endpoints',
    ]);
    assert.equal(config.ctrl.bind, 'eth0');
    assert.equal(config.ctrl.defaultRequestTimeout, 90_000);
    assert.deepEqual(config.ctrl.heartbeats, { sendInterval: 20_000, checkInterval: 2000, closeUnresponsiveTimeout: 120_000 });
    assert.deepEqual(config.ctrl.options, { outQueueSize: 4, connectTimeoutMs: 5000 });
    assert.equal(config.ctrl.endpointsFile, '/etc/edgeward/state/endpoints');
  });

  it('reads controllerFingerprints as lowercase hex, colons or not, and rejects anything else with its line', () => {
    const pinned = 'AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01';
    const config = valid([...base, `  controllerFingerprints: ["${pinned}", ${'f'.repeat(40)}]`, ...quiet]);
    assert.deepEqual(config.ctrl.controllerFingerprints, ['abcdef0123456789abcdef0123456789abcdef01', 'f'.repeat(40)]);
    assert.equal('controllerFingerprints' in valid([...base, ...quiet]).ctrl, false, 'unset: the SPIFFE rule');
    const { config: none, problems } = parse([...base, '  controllerFingerprints: [abc, 7]', ...quiet]);
    assert.equal(none, undefined);
    assert.deepEqual(brief(problems), ['7 error ctrl.controllerFingerprints[0] fingerprint', '7 error ctrl.controllerFingerprints[1] type']);
    assert.match(problems[0]!.message, /"abc": is not a SHA-1 fingerprint \(40 hex digits, colons allowed\)/);
    assert.deepEqual(brief(parse([...base, '  controllerFingerprints: []', ...quiet]).problems), ['7 error ctrl.controllerFingerprints min-items']);
  });

  it('rejects bad addresses with their line, including unbracketed IPv6 and unknown protocols', () => {
    const { config, problems } = parse([...base.slice(0, 5), '  endpoints:', '    - tls:::1:6262', '    - http:ctrl:80', '    - ctrl:6262', '  defaultRequestTimeout: 5', ...quiet]);
    assert.equal(config, undefined);
    assert.deepEqual(brief(problems), [
      '7 error ctrl.endpoints[0] address',
      '8 error ctrl.endpoints[1] address',
      '9 error ctrl.endpoints[2] address',
      '10 error ctrl.defaultRequestTimeout type',
    ]);
    assert.match(problems[0]!.message, /must be in brackets/);
    assert.match(problems[1]!.message, /protocol "http" is not allowed/);
    assert.match(problems[2]!.message, /missing protocol/);
  });

  it('warns, at its line, about each endpoint router run will not dial because it is not tls:', () => {
    const { config, problems } = parse([...base.slice(0, 5), '  endpoints: [tls:c1:6262, wss:c3.example.com:443]', ...quiet]);
    assert.ok(config, 'a warning: the file still loads');
    assert.deepEqual(problems.map((p) => [p.line, p.severity, p.path, p.rule, p.message]), [
      [6, 'warning', 'ctrl.endpoints[1]', 'ctrl-not-tls', '"wss:c3.example.com:443" is ignored: the control channel speaks tls only; use tls:<host>:<port>'],
    ]);
    const single = parse([...base.slice(0, 5), '  endpoint: tcp:ctrl.example.com:6262', ...quiet]);
    assert.deepEqual(brief(single.problems), ['6 warning ctrl.endpoint ctrl-not-tls']);
  });

  it('checks that heartbeats close an unresponsive channel only after a send interval, within 1s..1h', () => {
    const { problems } = parse([...base, '  heartbeats: { sendInterval: 30s, closeUnresponsiveTimeout: 20s }', ...quiet]);
    assert.deepEqual(brief(problems), ['7 error ctrl.heartbeats.closeUnresponsiveTimeout close-above-send']);
    assert.ok(valid([...base, '  heartbeats: { sendInterval: 1s, closeUnresponsiveTimeout: 1h }', ...quiet]));
    const out = parse([...base, '  heartbeats: { sendInterval: 1s, closeUnresponsiveTimeout: 1h1s }', ...quiet]);
    assert.deepEqual(brief(out.problems), ['7 error ctrl.heartbeats.closeUnresponsiveTimeout max']);
  });
});

describe('router config: dialers', () => {
  it('accepts the four bindings with options, and drops unknown ones with a warning', () => {
    const { config, problems } = withSection({
      dialers: [{ binding: 'proxy' }, { binding: 'proxy_udp', options: { mtu: 1400 } }, { binding: 'udp' }, { binding: 'transport' }, { binding: 'transport_udp' }],
    });
    assert.deepEqual(config?.dialers, [
      { binding: 'proxy', options: {} },
      { binding: 'proxy_udp', options: { mtu: 1400 } },
      { binding: 'transport', options: {} },
      { binding: 'transport_udp', options: {} },
    ]);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.severity]), [['dialers[2].binding', 'unknown-type', 'warning']]);
    assert.match(problems[0]!.message, /unknown dialer binding "udp"; known: proxy, proxy_udp, transport, transport_udp \(ignored\)/);
  });

  it('states the consequence when no usable dialer is left', () => {
    const { problems } = withSection({ dialers: [{ binding: 'udp' }] });
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [['dialers', 'missing-section'], ['dialers[0].binding', 'unknown-type']]);
  });

  it('rejects a dialer with no binding or a bad mtu', () => {
    const { config, problems } = withSection({ dialers: [{ options: { mtu: 1 } }, { binding: 'transport', options: { mtu: 0 } }] });
    assert.equal(config, undefined);
    assert.deepEqual(problems.filter((p) => p.severity === 'error').map((p) => [p.path, p.rule]), [['dialers[0].binding', 'required'], ['dialers[1].options.mtu', 'min']]);
  });
});

describe('router config: edge', () => {
  it('defaults db to <config path>.proto.gzip and the save interval to 30 seconds', () => {
    const config = valid([...base, ...quiet]);
    assert.deepEqual(config.edge, { db: '/etc/edgeward/router.yml.proto.gzip', dbSaveIntervalSeconds: 30, csr: { sans: { dns: ['*.example.com'], ip: ['2001:db8::1', '2001:db8::7'], email: [], uri: [] } } });
  });

  it('reads db (relative to the config dir), the interval, and every csr field', () => {
    const { config, problems } = withSection({
      edge: {
        db: 'state/router.db',
        dbSaveIntervalSeconds: 60,
        csr: {
          country: 'US',
          province: 'NC',
          locality: 'Charlotte',
          organization: 'NetFoundry',
          organizationalUnit: 'Ziti',
          sans: { dns: ['localhost', '*.example.com'], ip: ['127.0.0.1', '::1'], email: ['admin@example.com'], uri: ['spiffe://example.com/router'] },
        },
      },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.edge, {
      db: '/etc/edgeward/state/router.db',
      dbSaveIntervalSeconds: 60,
      csr: {
        country: 'US',
        province: 'NC',
        locality: 'Charlotte',
        organization: 'NetFoundry',
        organizationalUnit: 'Ziti',
        sans: { dns: ['localhost', '*.example.com'], ip: ['127.0.0.1', '::1'], email: ['admin@example.com'], uri: ['spiffe://example.com/router'] },
      },
    });
  });

  it('warns that without csr the router cannot enroll, and without SANs it cannot accept connections', () => {
    const noCsr = withSection({ edge: { dbSaveIntervalSeconds: 30 } });
    assert.deepEqual(noCsr.problems.map((p) => [p.path, p.severity, p.message]), [['edge.csr', 'warning', 'no edge.csr: the router cannot enroll or renew enrollments']]);
    assert.equal(noCsr.problems[0]!.line, lineOf(noCsr.lines, 'edge:'));
    const noSans = withSection({ edge: { csr: { country: 'US' } } });
    assert.deepEqual(noSans.problems.map((p) => [p.path, p.severity, p.rule]), [['edge.csr.sans', 'warning', 'no-sans']]);
    assert.match(noSans.problems[0]!.message, /at least one valid SAN is needed to accept SDK or router connections/);
  });

  it('rejects invalid SANs, a bad country code and a non-positive save interval, each at its line', () => {
    const { lines, config, problems } = withSection({
      edge: { dbSaveIntervalSeconds: 0, csr: { country: 'USA', sans: { dns: ['bad host!'], ip: ['300.1.1.1'], email: ['nobody'], uri: ['no scheme'] } } },
    });
    assert.equal(config, undefined);
    assert.deepEqual(
      problems.filter((p) => p.rule !== 'advertise-not-in-sans').map((p) => [p.path, p.rule, p.line]),
      [
        ['edge.dbSaveIntervalSeconds', 'min', lineOf(lines, 'dbSaveIntervalSeconds')],
        ['edge.csr.country', 'pattern', lineOf(lines, 'country')],
        ['edge.csr.sans.dns[0]', 'san', lineOf(lines, 'bad host!')],
        ['edge.csr.sans.ip[0]', 'san', lineOf(lines, '300.1.1.1')],
        ['edge.csr.sans.email[0]', 'san', lineOf(lines, 'nobody')],
        ['edge.csr.sans.uri[0]', 'san', lineOf(lines, 'no scheme')],
      ],
    );
  });

  it('needs an edge listener: an edge section without one is an error', () => {
    const { config, problems } = withSection({ edge: { csr: { sans: { ip: ['10.0.0.1'] } } }, listeners: [{ binding: 'transport', address: 'tls:0.0.0.0:7099' }] });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [['edge', 'edge-listener-required']]);
  });

  it('warns when an advertised host is not among the csr SANs', () => {
    const { problems } = withSection({
      edge: { csr: { sans: { dns: ['*.example.com'], ip: ['10.0.0.1'] } } },
      link: { listeners: [{ binding: 'transport', bind: 'tls:0.0.0.0:6000', advertise: 'tls:10.0.0.2:6000' }] },
      listeners: [{ binding: 'edge', address: 'tls:0.0.0.0:3022', options: { advertise: 'router.other.org:3022' } }],
    });
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.severity]), [
      ['link.listeners[0].advertise', 'advertise-not-in-sans', 'warning'],
      ['listeners[0].advertise', 'advertise-not-in-sans', 'warning'],
    ]);
    assert.ok(withSection({ edge: { csr: { sans: { dns: ['*.example.com'] } } }, listeners: [{ binding: 'edge', address: 'tls:0.0.0.0:3022', advertise: 'r1.example.com:3022' }] }).problems.length === 0);
  });
});

/** [section path, default, min, max, a valid value with its parsed form]; durations written in Go syntax. */
type Bound = readonly [path: readonly string[], defaultValue: unknown, min: unknown, max: unknown, belowMin: unknown, aboveMax: unknown];

const forwarderBounds: Bound[] = [
  [['forwarder', 'faultTxInterval'], 15000, 0, undefined, -1, undefined],
  [['forwarder', 'idleCircuitTimeout'], 60000, 1, undefined, 0, undefined],
  [['forwarder', 'idleTxInterval'], 60000, 0, undefined, -1, undefined],
  [['forwarder', 'linkDialQueueLength'], 1000, 1, 10000, 0, 10001],
  [['forwarder', 'linkDialWorkerCount'], 32, 1, 10000, 0, 10001],
  [['forwarder', 'rateLimitedQueueLength'], 5000, 1, 50000, 0, 50001],
  [['forwarder', 'rateLimitedWorkerCount'], 5, 1, 10000, 0, 10001],
  [['forwarder', 'xgressCloseCheckInterval'], 5000, 1, undefined, 0, undefined],
  [['forwarder', 'xgressDialDwellTime'], 0, 0, undefined, -1, undefined],
  [['forwarder', 'xgressDialQueueLength'], 1000, 1, 10000, 0, 10001],
  [['forwarder', 'xgressDialWorkerCount'], 128, 1, 10000, 0, 10001],
  [['forwarder', 'latencyProbeInterval'], undefined, 0, undefined, -1, undefined],
  [['forwarder', 'maxCircuits'], 10_000, 1, 1_000_000, 0, 1_000_001],
  [['forwarder', 'maxCircuitsPerIdentity'], 1_000, 1, 1_000_000, 0, 1_000_001],
];

const durationBounds: Bound[] = [
  [['healthChecks', 'ctrlPingCheck', 'interval'], 30_000, '1ms', undefined, '0s', undefined],
  [['healthChecks', 'ctrlPingCheck', 'timeout'], 15_000, '1ms', undefined, '0s', undefined],
  [['healthChecks', 'ctrlPingCheck', 'initialDelay'], 15_000, '0s', undefined, '-1s', undefined],
  [['healthChecks', 'linkCheck', 'interval'], 5000, '1ms', undefined, '0s', undefined],
  [['healthChecks', 'linkCheck', 'initialDelay'], 1000, '0s', undefined, '-1s', undefined],
  [['metrics', 'reportInterval'], 60_000, '1ms', undefined, '0s', undefined],
  [['metrics', 'intervalAgeThreshold'], 80_000, '0s', undefined, '-1s', undefined],
  [['ctrl', 'defaultRequestTimeout'], 5000, '1ms', undefined, '0s', undefined],
  [['ctrl', 'heartbeats', 'sendInterval'], 10_000, '1s', '5m', '999ms', '5m1s'],
  [['ctrl', 'heartbeats', 'checkInterval'], 1000, '100ms', '1m', '99ms', '61s'],
];

const countBounds: Bound[] = [
  [['healthChecks', 'linkCheck', 'minLinks'], 0, 0, undefined, -1, undefined],
  [['metrics', 'messageQueueSize'], 10, 1, undefined, 0, undefined],
];

/** A file with `value` at `path` (under ctrl the base section is extended). */
function withValue(path: readonly string[], value: unknown) {
  let data: unknown = value;
  for (const key of [...path].reverse()) data = { [key]: data };
  const top = path[0]!;
  if (top === 'ctrl') {
    const ctrl: Record<string, unknown> = { endpoint: 'tls:ctrl.example.com:6262', ...((data as Record<string, Record<string, unknown>>).ctrl) };
    // A long close timeout keeps the heartbeat relation out of the way of the send interval's own bounds.
    if (path[1] === 'heartbeats') ctrl.heartbeats = { closeUnresponsiveTimeout: '1h', ...(ctrl.heartbeats as Record<string, unknown>) };
    const lines = [...base.slice(0, 4), ...stringify({ ctrl }).trimEnd().split('\n'), ...quiet];
    return { lines, ...parse(lines) };
  }
  return withSection(data as Record<string, unknown>);
}

function valueAt(config: RouterConfig, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

describe('router config: defaults and bounds', () => {
  for (const [path, defaultValue, min, max, belowMin, aboveMax] of [...forwarderBounds, ...durationBounds, ...countBounds]) {
    const name = path.join('.');
    it(`${name}: default ${String(defaultValue)}, min ${String(min)}${max === undefined ? '' : `, max ${String(max)}`}`, () => {
      assert.equal(valueAt(valid([...base, ...quiet]), path), defaultValue);
      assert.equal(withValue(path, min).config === undefined, false, `${name}: ${String(min)} is accepted`);
      const low = withValue(path, belowMin);
      assert.deepEqual(brief(low.problems.filter((p) => p.severity === 'error')), [`${lineOf(low.lines, `${path[path.length - 1]}:`)} error ${name} min`]);
      if (max !== undefined) {
        assert.equal(withValue(path, max).config === undefined, false, `${name}: ${String(max)} is accepted`);
        const high = withValue(path, aboveMax);
        assert.deepEqual(brief(high.problems.filter((p) => p.severity === 'error')), [`${lineOf(high.lines, `${path[path.length - 1]}:`)} error ${name} max`]);
      }
    });
  }

  it('holds a bare 0 to each duration bound: refused where the minimum is above zero, read as 0 where zero is allowed', () => {
    for (const [path, , min] of durationBounds) {
      const name = path.join('.');
      const zero = withValue(path, 0);
      if (min === '0s') {
        assert.equal(zero.config === undefined ? undefined : valueAt(zero.config, path), 0, `${name}: 0 is accepted as 0 ms`);
      } else {
        assert.deepEqual(brief(zero.problems.filter((p) => p.severity === 'error')), [`${lineOf(zero.lines, `${path[path.length - 1]}:`)} error ${name} min`], `${name}: 0 is refused`);
      }
    }
    const backoff = withSection({ link: { dialers: [{ binding: 'transport', unhealthyDialBackoff: { minRetryInterval: 0 } }] } });
    assert.deepEqual(backoff.problems.map((p) => [p.path, p.rule, p.message, p.line]), [
      ['link.dialers[0].unhealthyDialBackoff.minRetryInterval', 'min', 'must be at least 10ms', lineOf(backoff.lines, 'minRetryInterval')],
    ]);
  });

  it('rejects wrong types: strings for integers, numbers for durations, maps for lists, lists for maps', () => {
    const { lines, config, problems } = withSection({
      forwarder: { linkDialQueueLength: '1000', xgressDialDwellTime: 1.5 },
      healthChecks: { ctrlPingCheck: { interval: 30 }, linkCheck: { minLinks: 'one' } },
      metrics: { reportInterval: 'soon', messageQueueSize: true },
      trace: ['a'],
      profile: { memory: { path: 'mem.out', intervalMs: '15s' } },
    });
    assert.equal(config, undefined);
    assert.deepEqual(
      problems.map((p) => [p.path, p.rule, p.line]),
      [
        ['forwarder.linkDialQueueLength', 'type', lineOf(lines, 'linkDialQueueLength')],
        ['forwarder.xgressDialDwellTime', 'type', lineOf(lines, 'xgressDialDwellTime')],
        ['healthChecks.ctrlPingCheck.interval', 'type', lineOf(lines, 'interval: 30')],
        ['healthChecks.linkCheck.minLinks', 'type', lineOf(lines, 'minLinks')],
        ['metrics.reportInterval', 'duration', lineOf(lines, 'reportInterval')],
        ['metrics.messageQueueSize', 'type', lineOf(lines, 'messageQueueSize')],
        ['trace', 'type', lineOf(lines, 'trace:')],
        ['profile.memory.intervalMs', 'type', lineOf(lines, 'intervalMs')],
      ],
    );
    assert.equal(problems[0]!.message, 'must be an integer, got string "1000"');
    assert.equal(problems[2]!.message, 'must be a duration such as 30s, got number 30');
  });

  it('warns when intervalAgeThreshold is so long that the metrics queue drops every message before it may be sent', () => {
    const never = withSection({ metrics: { reportInterval: '1s', messageQueueSize: 10, intervalAgeThreshold: '10s' } });
    assert.ok(never.config);
    assert.deepEqual(never.problems.map((p) => [p.line, p.severity, p.path, p.rule, p.message]), [
      [
        lineOf(never.lines, 'intervalAgeThreshold'),
        'warning',
        'metrics.intervalAgeThreshold',
        'metrics-never-sent',
        'no metrics message is ever sent: each is held until 10s old, but the queue of 10 drops it after 10s (messageQueueSize × reportInterval)',
      ],
    ]);
    assert.deepEqual(withSection({ metrics: { reportInterval: '1s', messageQueueSize: 10, intervalAgeThreshold: '9s' } }).problems, []);
    assert.deepEqual(withSection({ metrics: {} }).problems, [], 'the defaults (1m, 10, 80s) are fine');
  });

  it('warns when maxCircuitsPerIdentity is above maxCircuits (the router-wide cap binds first)', () => {
    const above = withSection({ forwarder: { maxCircuits: 50, maxCircuitsPerIdentity: 100 } });
    assert.ok(above.config);
    assert.deepEqual(above.problems.map((p) => [p.line, p.severity, p.path, p.rule, p.message]), [
      [
        lineOf(above.lines, 'maxCircuitsPerIdentity'),
        'warning',
        'forwarder.maxCircuitsPerIdentity',
        'per-identity-above-max',
        '100 is above forwarder.maxCircuits (50): one identity can still hold at most maxCircuits circuits',
      ],
    ]);
    assert.deepEqual(withSection({ forwarder: { maxCircuits: 50, maxCircuitsPerIdentity: 50 } }).problems, []);
  });

  it('keeps latencyProbeInterval absent unless written (the spec states no default; the link manager uses 10 s)', () => {
    assert.equal(valid([...base, ...quiet]).forwarder.latencyProbeInterval, undefined);
    assert.equal(withSection({ forwarder: { latencyProbeInterval: 0 } }).config?.forwarder.latencyProbeInterval, 0);
  });
});

describe('router config: link', () => {
  it('fills listener and dialer defaults: groups [default], split true, both backoff policies', () => {
    const { config, problems } = withSection({
      link: { listeners: [{ binding: 'transport', bind: 'tls:0.0.0.0:6000', advertise: 'tls:router1.example.com:6000' }], dialers: [{ binding: 'transport' }] },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.link, {
      listeners: [
        {
          binding: 'transport',
          bind: { protocol: 'tls', host: '0.0.0.0', port: 6000 },
          advertise: { protocol: 'tls', host: 'router1.example.com', port: 6000 },
          groups: ['default'],
          options: {},
        },
      ],
      dialers: [
        {
          binding: 'transport',
          split: true,
          groups: ['default'],
          options: {},
          healthyDialBackoff: { minRetryInterval: 5000, maxRetryInterval: 300_000, retryBackoffFactor: 1.5 },
          unhealthyDialBackoff: { minRetryInterval: 60_000, maxRetryInterval: 3_600_000, retryBackoffFactor: 10 },
        },
      ],
    });
  });

  it('reads groups (a list or one name), split, bind, options, and a partial backoff policy', () => {
    const { config, problems } = withSection({
      link: {
        listeners: [{ binding: 'transport', bind: 'tls:[::]:6000', advertise: '[2001:db8::1]:6000', groups: ['east', 'west'], options: { outQueueSize: 4 } }],
        dialers: [{ binding: 'transport', split: false, bind: '10.0.0.5', groups: 'east', options: { connectTimeout: '30s' }, healthyDialBackoff: { maxRetryInterval: '1m' }, unhealthyDialBackoff: { retryBackoffFactor: 2 } }],
      },
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.link?.listeners[0]?.advertise, { protocol: 'tls', host: '2001:db8::1', port: 6000 }, 'a bare advertise takes the bind protocol');
    assert.deepEqual(config?.link?.listeners[0]?.groups, ['east', 'west']);
    const dialer = config?.link?.dialers[0];
    assert.deepEqual([dialer?.split, dialer?.bind, dialer?.groups, dialer?.options], [false, '10.0.0.5', ['east'], { connectTimeout: '30s' }]);
    assert.deepEqual(dialer?.healthyDialBackoff, { minRetryInterval: 5000, maxRetryInterval: 60_000, retryBackoffFactor: 1.5 });
    assert.deepEqual(dialer?.unhealthyDialBackoff, { minRetryInterval: 60_000, maxRetryInterval: 3_600_000, retryBackoffFactor: 2 });
  });

  it('bounds backoff intervals to 10ms..24h and the factor to 1..100, and keeps min at or below max', () => {
    const dialer = (backoff: Record<string, unknown>) => withSection({ link: { dialers: [{ binding: 'transport', healthyDialBackoff: backoff }] } });
    assert.ok(dialer({ minRetryInterval: '10ms', maxRetryInterval: '24h', retryBackoffFactor: 1 }).config);
    assert.ok(dialer({ retryBackoffFactor: 100 }).config);
    const broken = dialer({ minRetryInterval: '9ms', maxRetryInterval: '24h1ms', retryBackoffFactor: 0.5 });
    assert.deepEqual(broken.problems.map((p) => [p.path, p.rule, p.message]), [
      ['link.dialers[0].healthyDialBackoff.minRetryInterval', 'min', 'must be at least 10ms'],
      ['link.dialers[0].healthyDialBackoff.maxRetryInterval', 'max', 'must be at most 24h'],
      ['link.dialers[0].healthyDialBackoff.retryBackoffFactor', 'min', 'must be at least 1'],
    ]);
    assert.deepEqual(dialer({ retryBackoffFactor: 100.5 }).problems.map((p) => p.rule), ['max']);
    const inverted = withSection({ link: { dialers: [{ binding: 'transport', unhealthyDialBackoff: { maxRetryInterval: '30s' } }] } });
    assert.deepEqual(inverted.problems.map((p) => [p.path, p.rule, p.message]), [
      ['link.dialers[0].unhealthyDialBackoff.minRetryInterval', 'min-not-above-max', 'must not be above maxRetryInterval: 1m > 30s'],
    ]);
    assert.equal(inverted.problems[0]!.line, lineOf(inverted.lines, 'unhealthyDialBackoff'));
  });

  it('refuses a link listener bind that is not tls:, as router run cannot listen on it', () => {
    const { lines, config, problems } = withSection({ link: { listeners: [{ binding: 'transport', bind: 'tcp:0.0.0.0:6000', advertise: 'tls:router1.example.com:6000' }] } });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.line, p.path, p.rule, p.message]), [
      [lineOf(lines, 'bind: tcp:'), 'link.listeners[0].bind', 'link-not-tls', 'protocol "tcp" is not supported for links; use tls:<host>:<port>'],
    ]);
  });

  it('requires binding transport, bind and advertise on a listener, and binding transport on a dialer', () => {
    const { config, problems } = withSection({
      link: { listeners: [{ binding: 'tcp', bind: 'tls:0.0.0.0:6000' }, { binding: 'transport', bind: '0.0.0.0:6000', advertise: 'foo:bar:1', groups: [] }], dialers: [{ split: 'yes' }] },
    });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [
      ['link.listeners[0].binding', 'enum'],
      ['link.listeners[0].advertise', 'required'],
      ['link.listeners[1].bind', 'address'],
      ['link.listeners[1].advertise', 'address'],
      ['link.listeners[1].groups', 'min-items'],
      ['link.dialers[0].split', 'type'],
      ['link.dialers[0].binding', 'required'],
    ]);
  });
});

describe('router config: listeners', () => {
  it('reads the listen address as address or bind, and advertise on the item or in options', () => {
    const { config, problems } = withSection({
      listeners: [
        { binding: 'edge', address: 'tls:0.0.0.0:3022', options: { advertise: 'router.example.com:3022', connectTimeoutMs: 5000 } },
        { binding: 'edge', bind: 'tls:[::]:3023', advertise: '[2001:db8::7]:3023' },
        { binding: 'transport', address: 'tls:0.0.0.0:7099' },
        { binding: 'proxy', address: 'tcp:127.0.0.1:7001' },
      ],
    });
    assert.deepEqual(problems.filter((p) => p.rule !== 'advertise-not-in-sans'), []);
    assert.deepEqual(config?.listeners, [
      { binding: 'edge', bind: { protocol: 'tls', host: '0.0.0.0', port: 3022 }, advertise: { host: 'router.example.com', port: 3022 }, options: { connectTimeoutMs: 5000 } },
      { binding: 'edge', bind: { protocol: 'tls', host: '::', port: 3023 }, advertise: { host: '2001:db8::7', port: 3023 }, options: {} },
      { binding: 'transport', bind: { protocol: 'tls', host: '0.0.0.0', port: 7099 }, options: {} },
      { binding: 'proxy', bind: { protocol: 'tcp', host: '127.0.0.1', port: 7001 }, options: {} },
    ]);
  });

  it('rejects both spellings at once, advertise in both places, a protocol on advertise, and a missing address', () => {
    const { config, problems } = withSection({
      listeners: [
        { binding: 'edge', address: 'tls:0.0.0.0:3022', bind: 'tls:0.0.0.0:3022', advertise: 'a.example.com:3022', options: { advertise: 'b.example.com:3022' } },
        { binding: 'edge', address: 'tls:0.0.0.0:3024', options: { advertise: 'tls:router.example.com:3024' } },
        { binding: 'transport' },
      ],
    });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [
      ['listeners[0].address', 'alias-conflict'],
      ['listeners[0].options.advertise', 'advertise-twice'],
      ['listeners[1].options.advertise', 'address'],
      ['listeners[2].bind', 'required'],
    ]);
    assert.equal(problems[2]!.message, '"tls:router.example.com:3024": is <host>:<port> without a protocol, e.g. router.example.com:3024');
    assert.equal(problems[3]!.message, 'is required (the listen address, also written as "address")');
  });

  it('rejects an unknown listener binding with the known ones and a suggestion', () => {
    const { problems } = withSection({ listeners: [{ binding: 'edge_wss', address: 'tls:0.0.0.0:3023' }, { binding: 'tunel' }] });
    assert.deepEqual(problems.filter((p) => p.severity === 'error').map((p) => [p.path, p.rule]), [
      ['edge', 'edge-listener-required'],
      ['listeners[0].binding', 'unknown-type'],
      ['listeners[1].binding', 'unknown-type'],
    ]);
    assert.match(problems[1]!.message, /known: edge, edge_transport, tunnel, transport, transport_udp, proxy, proxy_udp/);
    assert.match(problems[2]!.message, /did you mean "tunnel"\?/);
  });

  it('warns when an edge listener advertises nothing', () => {
    const { problems } = withSection({ listeners: [{ binding: 'edge', address: 'tls:0.0.0.0:3022' }] });
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.severity]), [['listeners[0].options.advertise', 'no-advertise', 'warning']]);
  });
});

describe('router config: tunnel modes', () => {
  const tunnel = (options?: Record<string, unknown>) => withSection({ listeners: [...(options === undefined ? [{ binding: 'tunnel' }] : [{ binding: 'tunnel', options }]), { binding: 'edge', address: 'tls:0.0.0.0:3022', options: { advertise: 'router.example.com:3022' } }] });

  it('host mode has no extra options', () => {
    const { config, problems } = tunnel({ mode: 'host' });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.listeners?.[0], { binding: 'tunnel', options: { mode: 'host' } });
  });

  it('tproxy (the mode when none is given) fills resolver and dnsSvcIpRange, and keeps other options', () => {
    assert.deepEqual(tunnel().config?.listeners?.[0], { binding: 'tunnel', options: { mode: 'tproxy', resolver: 'udp://127.0.0.1:53', dnsSvcIpRange: '100.64.0.1/10' } });
    const { config, problems } = tunnel({ mode: 'tproxy', resolver: 'udp://[::1]:5353', dnsSvcIpRange: 'fd00::/64', lanIf: 'eth0' });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.listeners?.[0], { binding: 'tunnel', options: { mode: 'tproxy', resolver: 'udp://[::1]:5353', dnsSvcIpRange: 'fd00::/64', lanIf: 'eth0' } });
  });

  it('proxy mode parses services as <service>:<port>, with an optional :udp or :tcp', () => {
    const { config, problems } = tunnel({ mode: 'proxy', services: ['web:8080', 'dns:5353:udp', 'ns:svc:22:tcp'] });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.listeners?.[0], {
      binding: 'tunnel',
      options: {
        mode: 'proxy',
        services: [
          { service: 'web', port: 8080, protocol: 'tcp' },
          { service: 'dns', port: 5353, protocol: 'udp' },
          { service: 'ns:svc', port: 22, protocol: 'tcp' },
        ],
      },
    });
  });

  it('rejects an unknown mode, bad resolver, range and services, each at its line', () => {
    const { lines, config, problems } = tunnel({ mode: 'transparent', resolver: 'tcp://127.0.0.1:53', dnsSvcIpRange: '100.64.0.1/33', services: ['web', 'web:http', ':80', 'web:70000'] });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.line]), [
      ['listeners[0].options.mode', 'enum', lineOf(lines, 'mode:')],
      ['listeners[0].options.resolver', 'resolver', lineOf(lines, 'resolver:')],
      ['listeners[0].options.dnsSvcIpRange', 'cidr', lineOf(lines, 'dnsSvcIpRange:')],
      ['listeners[0].options.services[0]', 'tunnel-service', lineOf(lines, '- web', lineOf(lines, 'services:'))],
      ['listeners[0].options.services[1]', 'tunnel-service', lineOf(lines, 'web:http')],
      ['listeners[0].options.services[2]', 'tunnel-service', lineOf(lines, ':80')],
      ['listeners[0].options.services[3]', 'tunnel-service', lineOf(lines, 'web:70000')],
    ]);
  });

  it('warns about options that do nothing in the chosen mode, and a proxy with no services', () => {
    const host = tunnel({ mode: 'host', resolver: 'udp://127.0.0.1:53', services: ['web:80'] });
    assert.deepEqual(host.problems.map((p) => [p.path, p.rule, p.severity]), [
      ['listeners[0].options.resolver', 'ignored-in-mode', 'warning'],
      ['listeners[0].options.services', 'ignored-in-mode', 'warning'],
    ]);
    assert.deepEqual(host.config?.listeners?.[0], { binding: 'tunnel', options: { mode: 'host' } });
    assert.deepEqual(tunnel({ mode: 'proxy' }).problems.map((p) => [p.path, p.rule]), [['listeners[0].options', 'no-services']]);
  });
});

describe('router config: trace, transport, profile, web', () => {
  it('reads every one with its defaults', () => {
    const { config, problems } = withSection({
      trace: { path: 'debug/ctrl.trace' },
      transport: { westworld3: { tx_portal_start_sz: 16384, instrument: { name: 'metrics', path: '/tmp/ww3' } } },
      profile: { cpu: { path: 'cpu.prof' }, memory: { path: 'mem.prof' } },
      web: [{ name: 'health-check', bindPoints: [{ interface: '127.0.0.1:8081', address: 'router.example.com:8081' }], apis: [{ binding: 'health-checks' }] }],
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(config?.trace, { path: '/etc/edgeward/debug/ctrl.trace' });
    assert.deepEqual(config?.transport, { westworld3: { tx_portal_start_sz: 16384, instrument: { name: 'metrics', path: '/tmp/ww3' } } });
    assert.deepEqual(config?.profile, { cpu: { path: '/etc/edgeward/cpu.prof' }, memory: { path: '/etc/edgeward/mem.prof', intervalMs: 15000 } });
    assert.deepEqual(config?.web, [
      { name: 'health-check', bindPoints: [{ interface: { host: '127.0.0.1', port: 8081 }, address: { host: 'router.example.com', port: 8081 } }], options: {}, apis: [{ binding: 'health-checks', options: {} }] },
    ]);
  });

  it('requires trace.path, profile paths, web names, bind points and a known API', () => {
    const { config, problems } = withSection({
      trace: { file: 'x' },
      profile: { cpu: {}, memory: { intervalMs: 0 } },
      web: [{ bindPoints: [], apis: [{ binding: 'edge-management' }] }],
    });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.severity]), [
      ['trace.path', 'required', 'error'],
      ['trace.file', 'unknown-key', 'warning'],
      ['profile.cpu.path', 'required', 'error'],
      ['profile.memory.path', 'required', 'error'],
      ['profile.memory.intervalMs', 'min', 'error'],
      ['web[0].bindPoints', 'min-items', 'error'],
      ['web[0].name', 'required', 'error'],
      ['web[0].apis[0].binding', 'enum', 'error'],
    ]);
  });
});

describe('router config: unknown keys and env substitution', () => {
  it('warns about unknown keys at every level, with a did-you-mean, and still loads', () => {
    const { lines, config, problems } = withSection({
      healthCheck: { port: 8081 },
      forwarder: { linkDialQueueLenght: 10 },
      metrics: { reportinterval: '1m' },
      link: { dialers: [{ binding: 'transport', healthyDialBackof: {} }] },
    });
    assert.ok(config);
    assert.deepEqual(problems.map((p) => [p.path, p.severity, p.rule, p.line]), [
      ['healthCheck', 'warning', 'unknown-key', lineOf(lines, 'healthCheck:')],
      ['forwarder.linkDialQueueLenght', 'warning', 'unknown-key', lineOf(lines, 'linkDialQueueLenght')],
      ['metrics.reportinterval', 'warning', 'unknown-key', lineOf(lines, 'reportinterval')],
      ['link.dialers[0].healthyDialBackof', 'warning', 'unknown-key', lineOf(lines, 'healthyDialBackof')],
    ]);
    assert.equal(problems[0]!.message, 'unknown key "healthCheck" (did you mean "healthChecks"?)');
    assert.match(problems[1]!.message, /did you mean "linkDialQueueLength"\?/);
    assert.match(problems[2]!.message, /did you mean "reportInterval"\?/);
    assert.match(problems[3]!.message, /did you mean "healthyDialBackoff"\?/);
  });

  it('keeps unknown component options but warns about a near-miss of a known one', () => {
    const { config, problems } = withSection({ listeners: [{ binding: 'edge', address: 'tls:0.0.0.0:3022', options: { advertize: 'router.example.com:3022', maxQueuedConnects: 50 } }] });
    // The missing advertise is reported at the options map, the line before the misspelt key.
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [['listeners[0].options.advertise', 'no-advertise'], ['listeners[0].options.advertize', 'unknown-key']]);
    assert.deepEqual(config?.listeners?.[0]?.options, { advertize: 'router.example.com:3022', maxQueuedConnects: 50 });
  });

  it('expands $VAR and ${VAR} in string values, unset as empty, leaving keys and numbers alone', () => {
    const lines = [
      'v: 3',
      'identity:',
      '  cert: ${ZITI_HOME}/router.cert',
      '  key: $ZITI_HOME/router.key',
      'ctrl:',
      '  endpoint: tls:${CTRL_HOST}:${CTRL_PORT}',
      '  bind: ${UNSET}eth0',
      'link:',
      '  listeners:',
      '    - binding: transport',
      '      bind: tls:0.0.0.0:6000',
      '      advertise: tls:$PUBLIC_NAME:6000',
      'metrics:',
      '  reportInterval: ${REPORT}',
    ];
    const config = valid(lines, { ZITI_HOME: '/var/lib/ziti', CTRL_HOST: '[::1]', CTRL_PORT: '1280', PUBLIC_NAME: 'r1.example.com', REPORT: '30s' });
    assert.equal(config.identity.cert, '/var/lib/ziti/router.cert');
    assert.equal(config.identity.key, '/var/lib/ziti/router.key');
    assert.deepEqual(config.ctrl.endpoints, [{ protocol: 'tls', host: '::1', port: 1280 }]);
    assert.equal(config.ctrl.bind, 'eth0');
    assert.deepEqual(config.link?.listeners[0]?.advertise, { protocol: 'tls', host: 'r1.example.com', port: 6000 });
    assert.equal(config.metrics.reportInterval, 30_000);
  });

  it('reports what an unset variable leaves behind, and a number fed by a variable stays a string', () => {
    const { config, problems } = parse([...base.slice(0, 5), '  endpoint: tls:${CTRL_HOST}:6262', 'forwarder:', '  linkDialWorkerCount: ${WORKERS}', ...quiet], { WORKERS: '8' });
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.line, p.path, p.rule, p.message]), [
      [6, 'ctrl.endpoint', 'address', '"tls::6262": missing host; expected <host>:<port>'],
      [8, 'forwarder.linkDialWorkerCount', 'type', 'must be an integer, got string "8"'],
    ]);
  });

  it('stops at YAML syntax errors with their line', () => {
    const { config, problems } = parse(['v: 3', 'ctrl:', '  endpoint: tls:a:1', '  endpoint: tls:b:1']);
    assert.equal(config, undefined);
    assert.deepEqual(problems.map((p) => [p.line, p.rule]), [[4, 'yaml-syntax']]);
  });
});

describe('router config: missing sections', () => {
  for (const section of ['dialers', 'edge', 'link', 'listeners'] as const) {
    it(`without ${section}: loads, with the spec's consequence as a warning`, () => {
      const lines = quiet.filter((_, i, all) => !sectionAt(all, i, [section]));
      // The edge listener needs an edge section to matter, and the edge section needs the listener: drop the pair.
      const { config, problems } = parse([...base, ...(section === 'listeners' ? lines.filter((_, i, all) => !sectionAt(all, i, ['edge'])) : lines)]);
      assert.ok(config);
      assert.equal(config[section], undefined);
      const consequence = problems.find((p) => p.path === section);
      assert.deepEqual([consequence?.severity, consequence?.rule, consequence?.message], ['warning', 'missing-section', missingSectionConsequences[section]]);
    });
  }

  it('treats a section written with nothing under it as missing', () => {
    const { config, problems } = parse([...base, 'edge:', 'link:', 'dialers:', 'listeners:']);
    assert.ok(config);
    assert.deepEqual(problems.map((p) => p.rule), ['missing-section', 'missing-section', 'missing-section', 'missing-section']);
  });
});
