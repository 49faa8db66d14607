import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { s, validate } from './schema.ts';
import type { ConfigProblem, Infer, RuleFinding } from './schema.ts';
import { parseYamlSource } from './yaml-source.ts';

const base = { baseDir: '/etc/edgeward' };

/** Validates YAML text against a schema with real line numbers. */
function run<S extends Parameters<typeof validate>[0]>(schema: S, lines: readonly string[], options: { unknownKeys?: 'error' | 'warning' } = {}) {
  const source = parseYamlSource(lines.join('\n'));
  assert.deepEqual(source.problems, []);
  return validate(schema, source.data, { ...base, ...options, locate: (path) => source.lineOf(path) });
}

function brief(problems: readonly ConfigProblem[]): string[] {
  return problems.map((p) => `${p.line ?? '-'} ${p.severity} ${p.path} ${p.rule}`);
}

const raftSchema = s.object({
  dataDir: s.path().required(),
  snapshotThreshold: s.integer({ min: 1, max: 1000 }).default(500),
  electionTimeout: s.duration({ min: '100ms', max: '1m' }).default('1s'),
  heartbeatTimeout: s.duration({ min: 10, max: '10s' }).default('200ms'),
  preferredLeader: s.boolean().default(false),
}).rule((value): RuleFinding[] =>
  typeof value.electionTimeout === 'number' && typeof value.heartbeatTimeout === 'number' && value.electionTimeout <= value.heartbeatTimeout
    ? [{ path: ['electionTimeout'], rule: 'election-above-heartbeat', message: 'must be greater than heartbeatTimeout', value: value.electionTimeout }]
    : [],
);

describe('validate: defaults and parsing', () => {
  it('fills defaults written in file form and parses them', () => {
    const { value, problems } = validate(raftSchema, { dataDir: 'data' }, base);
    assert.deepEqual(problems, []);
    assert.deepEqual(value, { dataDir: '/etc/edgeward/data', snapshotThreshold: 500, electionTimeout: 1000, heartbeatTimeout: 200, preferredLeader: false });
  });

  it('deep-freezes the result', () => {
    const schema = s.object({ list: s.array(s.object({ a: s.integer() })).default([{ a: 1 }]), nested: s.object({ x: s.string().default('y') }).default({}) });
    const { value } = validate(schema, {}, base);
    assert.ok(value);
    assert.ok(Object.isFrozen(value));
    assert.ok(Object.isFrozen(value.list));
    assert.ok(Object.isFrozen(value.list[0]));
    assert.ok(Object.isFrozen(value.nested));
    assert.deepEqual(value, { list: [{ a: 1 }], nested: { x: 'y' } });
  });

  it('treats an explicit null like an absent key', () => {
    const schema = s.object({ log: s.object({ level: s.string().default('info') }).default({}), name: s.string().required() });
    const { value, problems } = validate(schema, { log: null, name: null }, base);
    assert.equal(value, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [['name', 'required']]);
  });

  it('parses addresses, host:port pairs and paths', () => {
    const schema = s.object({
      listener: s.address({ protocols: ['tls'] }),
      bind: s.hostPort(),
      abs: s.path(),
      rel: s.path(),
    });
    const { value, problems } = validate(schema, { listener: 'tls:[::1]:6262', bind: '0.0.0.0:1280', abs: '/x/y', rel: '../pki/ca.pem' }, base);
    assert.deepEqual(problems, []);
    assert.deepEqual(value, {
      listener: { protocol: 'tls', host: '::1', port: 6262 },
      bind: { host: '0.0.0.0', port: 1280 },
      abs: '/x/y',
      rel: '/etc/pki/ca.pem',
    });
  });

  it('matches enums case-insensitively when asked, giving the canonical spelling', () => {
    const schema = s.object({ format: s.string({ enum: ['json'], caseInsensitive: true }), level: s.string({ enum: ['debug', 'info'] }) });
    const { value, problems } = validate(schema, { format: 'JSON', level: 'INFO' }, base);
    assert.equal(value, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message]), [['level', 'enum', 'must be one of: debug, info (did you mean "info"?)']]);
    assert.deepEqual(validate(schema, { format: 'Json', level: 'info' }, base).value, { format: 'json', level: 'info' });
  });

  it('accepts "true"/"false" strings only where allowed', () => {
    const schema = s.object({ loose: s.boolean({ acceptStrings: true }), strict: s.boolean() });
    assert.deepEqual(validate(schema, { loose: 'TRUE', strict: false }, base).value, { loose: true, strict: false });
    const { problems } = validate(schema, { loose: 'yes', strict: 'true' }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.message]), [
      ['loose', 'must be a boolean (or "true"/"false"), got string "yes"'],
      ['strict', 'must be a boolean, got string "true"'],
    ]);
  });

  it('reads a bare 0 as a zero duration but rejects other unit-less numbers', () => {
    const schema = s.object({ a: s.duration(), b: s.duration() });
    const { problems } = validate(schema, { a: 0, b: 30 }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message]), [['b', 'type', 'must be a duration such as 30s, got number 30']]);
  });

  it('holds a bare 0 to the bounds like any other duration', () => {
    const schema = s.object({ a: s.duration({ min: '10ms' }), b: s.duration({ min: 0 }), c: s.duration({ min: '1s', max: '5m' }) });
    const { value, problems } = validate(schema, { a: 0, b: 0, c: 0 }, base);
    assert.equal(value, undefined);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message, p.value]), [
      ['a', 'min', 'must be at least 10ms', 0],
      ['c', 'min', 'must be at least 1s', 0],
    ]);
  });
});

describe('validate: problems', () => {
  it('reports every problem in one pass, in file order, with lines', () => {
    const { value, problems } = run(raftSchema, [
      'snapshotThreshold: "500"', // 1: string, not integer
      'electionTimeout: 10x', //     2: bad duration
      'heartbeatTimeout: 5ns', //    3: below min
      'preferredLeader: yes', //     4: YAML 1.2 reads "yes" as a string
      'snapshotIntervall: 2m', //    5: unknown key
    ]);
    assert.equal(value, undefined);
    assert.deepEqual(brief(problems), [
      '- error dataDir required',
      '1 error snapshotThreshold type',
      '2 error electionTimeout duration',
      '3 error heartbeatTimeout min',
      '4 error preferredLeader type',
      '5 error snapshotIntervall unknown-key',
    ]);
    assert.equal(problems[1]!.value, '500');
    assert.equal(problems[3]!.message, 'must be at least 10ms');
  });

  it('locates nested list items, and absent keys at their nearest present ancestor', () => {
    const schema = s.object({
      web: s.array(
        s.object({
          name: s.string().required(),
          bindPoints: s.array(s.object({ interface: s.hostPort().required(), address: s.hostPort().required() }), { minItems: 1 }).required(),
        }),
        { minItems: 1 },
      ),
    });
    const { problems } = run(schema, [
      'web:', //                          1
      '  - name: one', //                  2
      '    bindPoints:', //                3
      '      - interface: 0.0.0.0:1280', // 4
      '        address: localhost', //     5
      '      - interface: ::1:80', //      6
      '  - bindPoints: []', //             7
    ]);
    assert.deepEqual(brief(problems), [
      '5 error web[0].bindPoints[0].address address',
      '6 error web[0].bindPoints[1].interface address',
      '6 error web[0].bindPoints[1].address required',
      '7 error web[1].bindPoints min-items',
      '7 error web[1].name required',
    ]);
    assert.equal(problems[0]!.message, '"localhost": missing port; expected <host>:<port>');
    assert.equal(problems[3]!.message, 'must not be empty');
  });

  it('reports unknown keys as errors or warnings, with a hint', () => {
    const schema = s.object({ dataDir: s.string(), inner: s.object({ a: s.integer() }, { unknownKeys: 'error' }) });
    const strict = validate(schema, { datadir: 'x', inner: { b: 1 } }, base);
    assert.deepEqual(strict.problems.map((p) => [p.severity, p.path, p.message]), [
      ['error', 'datadir', 'unknown key "datadir" (did you mean "dataDir"?)'],
      ['error', 'inner.b', 'unknown key "b"'],
    ]);
    const lenient = validate(schema, { datadir: 'x', inner: { b: 1 } }, { ...base, unknownKeys: 'warning' });
    assert.deepEqual(lenient.problems.map((p) => [p.severity, p.path]), [
      ['warning', 'datadir'],
      ['error', 'inner.b'],
    ]);
    assert.equal(lenient.value, undefined);
    const onlyWarnings = validate(schema, { extra: true }, { ...base, unknownKeys: 'warning' });
    assert.deepEqual(onlyWarnings.value, {}, 'warnings do not withhold the value');
  });

  it('reports the empty document as each missing required key', () => {
    const schema = s.object({ v: s.integer({ enum: [3] }).required(), identity: s.object({}).required() });
    const { problems } = run(schema, ['# nothing yet']);
    assert.deepEqual(brief(problems), ['- error v required', '- error identity required']);
  });

  it('checks integers exactly, without coercing strings', () => {
    const schema = s.object({ v: s.integer({ enum: [3] }), n: s.integer({ min: 0, max: 10 }), f: s.number({ max: 1 }) });
    const { problems } = validate(schema, { v: '3', n: 1.5, f: 2 }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message]), [
      ['v', 'type', 'must be an integer, got string "3"'],
      ['n', 'type', 'must be an integer, got number 1.5'],
      ['f', 'max', 'must be at most 1'],
    ]);
    assert.deepEqual(validate(schema, { v: 4 }, base).problems.map((p) => p.message), ['must be 3']);
  });

  it('checks strings against patterns and minimum lengths', () => {
    const schema = s.object({ host: s.string({ pattern: /^[a-z.]+$/, patternMessage: 'must be a lower-case host name' }), name: s.string({ minLength: 1 }) });
    const { problems } = validate(schema, { host: 'Bad_Host', name: '' }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message]), [
      ['host', 'pattern', 'must be a lower-case host name'],
      ['name', 'min-length', 'must not be empty'],
    ]);
  });

  it('reports list size limits and wrong container types', () => {
    const schema = s.object({ few: s.array(s.integer(), { minItems: 2, maxItems: 3 }), many: s.array(s.integer(), { maxItems: 1 }), map: s.record(s.integer()) });
    const { problems } = validate(schema, { few: [1], many: [1, 2], map: ['x'] }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message]), [
      ['few', 'min-items', 'must have at least 2 items'],
      ['many', 'max-items', 'must have at most 1 items'],
      ['map', 'type', 'must be a map, got a list'],
    ]);
  });
});

describe('validate: aliases', () => {
  const schema = s.object({ peerHeartbeatOptions: s.object({ sendInterval: s.duration({ min: '1s' }).default('10s') }).default({}) }, { aliases: { peerHeartbeats: 'peerHeartbeatOptions' } });

  it('accepts the alias and reports problems under the key as written', () => {
    assert.deepEqual(validate(schema, { peerHeartbeats: { sendInterval: '5s' } }, base).value, { peerHeartbeatOptions: { sendInterval: 5000 } });
    const { problems } = run(schema, ['peerHeartbeats:', '  sendInterval: 1ms']);
    assert.deepEqual(brief(problems), ['2 error peerHeartbeats.sendInterval min']);
  });

  it('rejects setting both spellings', () => {
    const { problems } = validate(schema, { peerHeartbeats: {}, peerHeartbeatOptions: {} }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.rule]), [['peerHeartbeats', 'alias-conflict']]);
  });
});

describe('validate: tagged maps', () => {
  const subscription = s.tagged(
    'type',
    {
      cluster: s.object({}),
      entityChange: s.object({ propagateAlways: s.boolean({ acceptStrings: true }).default(false), include: s.array(s.string()).default([]) }),
    },
    { unknownTag: 'warning', label: 'subscription', aliases: { 'edge.clusters': 'cluster' } },
  );
  const schema = s.object({ subscriptions: s.array(subscription) });

  it('validates each variant and keeps the tag', () => {
    const { value, problems } = validate(schema, { subscriptions: [{ type: 'cluster' }, { type: 'entityChange', propagateAlways: 'true' }] }, base);
    assert.deepEqual(problems, []);
    assert.deepEqual(value, { subscriptions: [{ type: 'cluster' }, { type: 'entityChange', propagateAlways: true, include: [] }] });
  });

  it('maps legacy tag spellings to their variant', () => {
    assert.deepEqual(validate(schema, { subscriptions: [{ type: 'edge.clusters' }] }, base).value, { subscriptions: [{ type: 'cluster' }] });
  });

  it('drops an unknown variant with a warning and keeps the rest', () => {
    const { value, problems } = validate(schema, { subscriptions: [{ type: 'metric' }, { type: 'cluster' }] }, base);
    assert.deepEqual(problems.map((p) => [p.severity, p.path, p.rule]), [['warning', 'subscriptions[0].type', 'unknown-type']]);
    assert.match(problems[0]!.message, /did you mean "cluster"|unknown subscription type "metric"/);
    assert.deepEqual(value, { subscriptions: [{ type: 'cluster' }] });
  });

  it('names non-map items by index and checks variant keys', () => {
    const { problems } = validate(schema, { subscriptions: ['cluster', { type: 'cluster', extra: 1 }, {}] }, base);
    assert.deepEqual(problems.map((p) => [p.path, p.rule, p.message]), [
      ['subscriptions[0]', 'type', 'subscription at index 0 is not a map'],
      ['subscriptions[1].extra', 'unknown-key', 'unknown key "extra"'],
      ['subscriptions[2].type', 'required', 'is required (one of: cluster, entityChange)'],
    ]);
  });
});

describe('validate: rules and transforms', () => {
  it('runs relation rules and reports at the path they name', () => {
    const { problems } = run(raftSchema, ['dataDir: d', 'electionTimeout: 100ms', 'heartbeatTimeout: 200ms']);
    assert.deepEqual(brief(problems), ['2 error electionTimeout election-above-heartbeat']);
    assert.equal(problems[0]!.value, 100);
  });

  it('still runs rules when an unrelated key in the same map is broken', () => {
    const { problems } = validate(raftSchema, { dataDir: 5, electionTimeout: '100ms', heartbeatTimeout: '1s' }, base);
    assert.deepEqual(problems.map((p) => p.rule), ['type', 'election-above-heartbeat']);
  });

  it('skips a rule whose inputs are themselves invalid', () => {
    const { problems } = validate(raftSchema, { dataDir: 'd', electionTimeout: 'soon', heartbeatTimeout: '1s' }, base);
    assert.deepEqual(problems.map((p) => p.rule), ['duration']);
  });

  it('reports a rule finding as a warning when the rule says so', () => {
    const schema = s.integer().rule((n) => (n === 13 ? [{ rule: 'unlucky', message: 'is unlucky', severity: 'warning' }] : []));
    const { value, problems } = validate(s.object({ n: schema }), { n: 13 }, base);
    assert.deepEqual(value, { n: 13 });
    assert.deepEqual(problems.map((p) => [p.severity, p.path, p.rule]), [['warning', 'n', 'unlucky']]);
  });

  it('applies transforms to valid values only', () => {
    const identity = s
      .object({ cert: s.path().required(), server_cert: s.path() })
      .transform((id) => ({ ...id, server_cert: id.server_cert ?? id.cert }));
    const schema = s.object({ identity: identity.required() });
    assert.deepEqual(validate(schema, { identity: { cert: 'c.pem' } }, base).value, { identity: { cert: '/etc/edgeward/c.pem', server_cert: '/etc/edgeward/c.pem' } });
    const broken = validate(schema, { identity: { server_cert: 's.pem' } }, base);
    assert.deepEqual(broken.problems.map((p) => [p.path, p.rule]), [['identity.cert', 'required']]);
  });
});

describe('validate: open objects and any values', () => {
  const options = s.object({ advertise: s.hostPort(), mode: s.string({ enum: ['host', 'tproxy'] }).default('host') }, { otherKeys: s.any() });

  it('keeps keys it does not name, as parsed, next to the validated ones', () => {
    const { value, problems } = run(s.object({ options: options.default({}) }), ['options:', '  advertise: h:1', '  connectTimeoutMs: 5000', '  nested: { a: [1, x] }']);
    assert.deepEqual(problems, []);
    assert.deepEqual(value, { options: { advertise: { host: 'h', port: 1 }, mode: 'host', connectTimeoutMs: 5000, nested: { a: [1, 'x'] } } });
  });

  it('warns about a near-miss of a named key but keeps it', () => {
    const { value, problems } = run(s.object({ options }), ['options:', '  advertize: h:1', '  Mode: tproxy']);
    assert.deepEqual(brief(problems), ['2 warning options.advertize unknown-key', '3 warning options.Mode unknown-key']);
    assert.match(problems[0]!.message, /did you mean "advertise"\?\); kept as an option/);
    assert.deepEqual(value, { options: { mode: 'host', advertize: 'h:1', Mode: 'tproxy' } });
  });

  it('validates the other keys with the schema it is given', () => {
    const schema = s.object({ name: s.string() }, { otherKeys: s.integer({ min: 0 }) });
    const { value, problems } = run(s.object({ limits: schema }), ['limits:', '  name: x', '  a: 1', '  b: -1']);
    assert.equal(value, undefined);
    assert.deepEqual(brief(problems), ['4 error limits.b min']);
  });

  it('builds custom scalars from any() with a rule and a transform', () => {
    const pair = s
      .any()
      .rule((raw) => (typeof raw === 'string' && /^\w+:\d+$/.test(raw) ? [] : [{ rule: 'pair', message: 'must be <name>:<number>' }]))
      .transform((raw) => {
        const [name, n] = (raw as string).split(':');
        return { name: name!, n: Number(n) };
      });
    const good = run(s.object({ p: pair.required() }), ['p: a:1']);
    assert.deepEqual(good.value, { p: { name: 'a', n: 1 } });
    const bad = run(s.object({ p: pair.required() }), ['p: [1]']);
    assert.deepEqual(brief(bad.problems), ['1 error p pair']);
  });
});

describe('Infer', () => {
  it('types required and defaulted keys as present and the rest as optional', () => {
    const schema = s.object({
      a: s.string().required(),
      b: s.integer().default(1),
      c: s.duration(),
      level: s.string({ enum: ['debug', 'info'] }).default('info'),
      listener: s.address({ protocols: ['tls'] }).required(),
    });
    type Config = Infer<typeof schema>;
    const sample: Config = { a: 'x', b: 1, level: 'info', listener: { protocol: 'tls', host: 'h', port: 1 } };
    // @ts-expect-error a required key may not be left out
    const missing: Config = { b: 1, level: 'info', listener: { protocol: 'tls', host: 'h', port: 1 } };
    // @ts-expect-error the enum is a union of its values
    const wrongLevel: Config = { ...sample, level: 'trace' };
    assert.deepEqual(validate(schema, { a: 'x', listener: 'tls:h:1' }, base).value, sample);
    assert.ok(missing && wrongLevel);
  });
});
