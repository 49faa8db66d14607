import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinConfigType, hostV1ConfigTypeId, interceptV1ConfigTypeId } from './builtin-config-types.ts';
import { configDataProblem, schemaProblem } from './config-schema.ts';

const hostV1 = builtinConfigType(hostV1ConfigTypeId)!.schema;
const interceptV1 = builtinConfigType(interceptV1ConfigTypeId)!.schema;

test('host.v1 takes a fixed protocol, address and port, or forwarded ones with their allowed sets', () => {
  assert.equal(configDataProblem(hostV1, { protocol: 'tcp', address: 'localhost', port: 8080 }), undefined);
  assert.equal(configDataProblem(hostV1, { protocol: 'udp', address: '10.0.0.5', port: 53, listenOptions: { bindUsingEdgeIdentity: true, precedence: 'required', cost: 10 } }), undefined);
  assert.equal(
    configDataProblem(hostV1, {
      forwardProtocol: true, allowedProtocols: ['tcp', 'udp'],
      forwardAddress: true, allowedAddresses: ['10.0.0.0/24', '*.example.com'],
      forwardPort: true, allowedPortRanges: [{ low: 80, high: 443 }],
    }),
    undefined,
  );
  assert.equal(configDataProblem(hostV1, { protocol: 'tcp', address: 'db', port: 5432, portChecks: [{ interval: '5s', timeout: '1s', address: 'db:5432', actions: [{ trigger: 'fail', action: 'mark unhealthy' }] }] }), undefined);
});

test('host.v1 refusals name the field by its path under data', () => {
  assert.deepEqual(configDataProblem(hostV1, { protocol: 'tcp', address: 'localhost', port: 70000 }), { field: 'data.port', reason: 'data.port must be <= 65535', value: 70000 });
  assert.deepEqual(configDataProblem(hostV1, { protocol: 'tcp', address: 'localhost' }), { field: 'data.port', reason: 'data.port is required' });
  assert.deepEqual(configDataProblem(hostV1, { protocol: 'sctp', address: 'localhost', port: 1 })?.field, 'data.protocol');
  assert.deepEqual(configDataProblem(hostV1, { protocol: 'tcp', address: '', port: 1 })?.field, 'data.address');
  assert.deepEqual(configDataProblem(hostV1, { protocol: 'tcp', address: 'x', port: 1, hostname: 'y' }), { field: 'data.hostname', reason: 'data.hostname is not allowed by the config type schema' });
  assert.deepEqual(configDataProblem(hostV1, { forwardPort: true, protocol: 'tcp', address: 'x' }), { field: 'data.allowedPortRanges', reason: 'data.allowedPortRanges is required' });
});

test('intercept.v1 needs protocols, addresses and port ranges; each range needs low and high', () => {
  assert.equal(configDataProblem(interceptV1, { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 80, high: 80 }], dialOptions: { identity: '' }, sourceIp: '' }), undefined);
  assert.deepEqual(configDataProblem(interceptV1, { protocols: ['tcp'], addresses: ['web.ziti'] }), { field: 'data.portRanges', reason: 'data.portRanges is required' });
  assert.deepEqual(configDataProblem(interceptV1, { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 80 }] }), { field: 'data.portRanges.0.high', reason: 'data.portRanges.0.high is required' });
  assert.equal(configDataProblem(interceptV1, { protocols: [], addresses: ['a'], portRanges: [{ low: 1, high: 2 }] })?.field, 'data.protocols');
  assert.equal(configDataProblem(interceptV1, { protocols: ['tcp', 'tcp'], addresses: ['a'], portRanges: [{ low: 1, high: 2 }] })?.field, 'data.protocols', 'a set: no duplicates');
});

test('an operator schema must itself be a JSON schema; any object schema checks its configs', () => {
  assert.equal(schemaProblem({}), undefined);
  assert.equal(schemaProblem({ type: 'object', required: ['url'], properties: { url: { type: 'string' } } }), undefined);
  assert.equal(schemaProblem({ type: 'no-such-type' })?.field.startsWith('schema'), true);
  assert.match(schemaProblem({ $ref: '#/definitions/missing' })?.reason ?? '', /not a valid JSON schema/);
  const schema = { type: 'object', required: ['url'], properties: { url: { type: 'string' } } };
  assert.deepEqual(configDataProblem(schema, {}), { field: 'data.url', reason: 'data.url is required' });
  assert.deepEqual(configDataProblem(schema, { url: 5 }), { field: 'data.url', reason: 'data.url must be string', value: 5 });
  assert.equal(configDataProblem({}, { anything: [1, 2] }), undefined);
  const draft4 = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['host'] };
  assert.equal(schemaProblem(draft4), undefined, 'a $schema naming an older draft is accepted, as the real controller accepts it');
  assert.equal(configDataProblem(draft4, {})?.field, 'data.host');
});

test("an operator's pattern runs in linear time (RE2): a backtracking pattern cannot hold the event loop", () => {
  const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(b+)+$': { type: 'string' } } };
  assert.equal(schemaProblem(schema), undefined);
  // JavaScript's RegExp takes about 20 s on 28 a's and doubles with each more; RE2 answers at once.
  const evil = `${'a'.repeat(20_000)}!`;
  const problem = configDataProblem(schema, { name: evil });
  assert.equal(problem?.field, 'data.name');
  assert.match(problem!.reason, /must match pattern/);
  assert.equal(configDataProblem(schema, { name: 'aaaa' }), undefined);
  assert.equal(configDataProblem(schema, { [`${'b'.repeat(20_000)}!`]: 1 }), undefined, 'a key the pattern does not match is not checked by it');
});

test('patterns use the real controller\'s (Go, RE2) syntax: lookarounds and backreferences are refused with the type', () => {
  assert.match(schemaProblem({ type: 'string', pattern: '^(?=a)a$' })!.reason, /schema is not a valid JSON schema/);
  assert.match(schemaProblem({ type: 'string', pattern: '(a)\\1' })!.reason, /schema is not a valid JSON schema/);
  assert.equal(schemaProblem({ type: 'string', pattern: '^\\p{L}+[0-9]{1,3}$' }), undefined);
});
