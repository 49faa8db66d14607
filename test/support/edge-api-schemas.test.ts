import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeApiSchemas } from './edge-api-schemas.ts';

const management = EdgeApiSchemas.load('management');

const base = { id: 'a1', createdAt: '2026-01-02T03:04:05.678Z', updatedAt: '2026-01-02T03:04:05Z', tags: {}, _links: { self: { href: './posture-checks/a1' } } };
const mfaCheck = { ...base, name: 'mfa', typeId: 'MFA', version: 1, roleAttributes: [], timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false };
const detail = (data: unknown) => ({ data, meta: {} });

test('a response as the spec describes it has no problems', () => {
  assert.deepEqual(management.problems('GET', '/posture-checks/a1', 200, detail(mfaCheck)), []);
  assert.deepEqual(management.problems('GET', '/posture-checks/a1', 200, detail({ ...mfaCheck, roleAttributes: null })), [], 'attributes are x-nullable');
  assert.deepEqual(management.problems('GET', '/posture-checks', 200, { data: [mfaCheck], meta: { pagination: { limit: 10, offset: 0, totalCount: 1 }, filterableFields: [] } }), []);
  assert.equal(management.templateOf('/identities/x1/authenticators'), '/identities/{id}/authenticators');
  assert.equal(management.templateOf('/current-identity/mfa'), '/current-identity/mfa');
});

test('what a generated client refuses is found: missing required, null where not nullable, enums, formats, types, subtypes', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a missing required property', { ...mfaCheck, version: undefined }, /must have required property 'version'/],
    ['null where x-nullable is not set', { ...mfaCheck, name: null }, /\/data\/name must be string/],
    ['a date-time strfmt cannot read', { ...mfaCheck, createdAt: '2026-01-02 03:04:05' }, /\/data\/createdAt must match format "date-time"/],
    ['an empty date-time', { ...mfaCheck, updatedAt: '' }, /\/data\/updatedAt must match format "date-time"/],
    ['a number where an integer is due', { ...mfaCheck, version: 1.5 }, /\/data\/version must be integer/],
    ['a string where a boolean is due', { ...mfaCheck, promptOnWake: 'no' }, /\/data\/promptOnWake must be boolean/],
    ['a discriminator value with no subtype', { ...mfaCheck, typeId: 'NOPE' }, /typeId must be equal to one of the allowed values/],
  ];
  for (const [what, data, expected] of cases) {
    const problems = management.problems('GET', '/posture-checks/a1', 200, detail(data));
    assert.ok(problems.some((problem) => expected.test(problem)), `${what}: ${problems.join('; ')}`);
  }
  const service = { ...base, name: 's', maxIdleTimeMillis: 0, terminatorStrategy: 'smartrouting', roleAttributes: [], configs: [], config: {}, encryptionRequired: true, postureQueries: [] };
  assert.deepEqual(management.problems('GET', '/services/a1', 200, detail({ ...service, permissions: ['Bind', 'Dial'] })), []);
  assert.match(management.problems('GET', '/services/a1', 200, detail({ ...service, permissions: ['Both'] })).join(), /permissions\/0 must be equal to one of the allowed values/);
  assert.deepEqual(management.problems('GET', '/identities/a1', 200, { data: {}, meta: {} }).length > 10, true, 'every required identity field is named');
});

test('a response the spec does not document is a problem too', () => {
  assert.match(management.problems('GET', '/no-such-collection', 200, {}).join(), /no path/);
  assert.match(management.problems('PUT', '/version', 200, {}).join(), /no such operation/);
  assert.match(management.problems('GET', '/version', 418, {}).join(), /documents no 418 response/);
});

test('operations() lists every method and path of a spec with the statuses it documents', () => {
  const operations = management.operations();
  assert.equal(operations.length, 199, 'management.yml 0.29.0 has 199 operations');
  assert.equal(EdgeApiSchemas.load('client').operations().length, 59, 'client.yml 0.29.0 has 59 operations');
  const create = operations.find((operation) => operation.method === 'POST' && operation.template === '/identities');
  assert.deepEqual(create?.statuses, [201, 400, 401, 429, 503]);
  assert.ok(operations.every((operation) => operation.statuses.length > 0 && /^(GET|POST|PUT|PATCH|DELETE)$/.test(operation.method)));
});
