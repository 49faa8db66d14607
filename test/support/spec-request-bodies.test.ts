import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeApiSchemas } from './edge-api-schemas.ts';
import { sampleBody } from './spec-request-bodies.ts';

const management = EdgeApiSchemas.load('management');

test('a sample body fills the required properties with values of their types, nested ones too', () => {
  const identity = sampleBody(management.requestBody('POST', '/identities')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(identity).sort(), ['isAdmin', 'name', 'type']);
  assert.equal(identity.isAdmin, false);
  assert.equal(typeof identity.name, 'string');
  const policy = sampleBody(management.requestBody('POST', '/auth-policies')) as { primary: { updb: { minPasswordLength: unknown } } };
  assert.equal(typeof policy.primary.updb.minPasswordLength, 'number', 'nested required objects are filled');
  const enrollment = sampleBody(management.requestBody('POST', '/enrollments')) as { expiresAt: string };
  assert.ok(Date.parse(enrollment.expiresAt) > Date.now(), 'a date-time lies ahead');
});

test('hints give meaningful values by name, optional properties included; extra adds undeclared ones', () => {
  const session = sampleBody(EdgeApiSchemas.load('client').requestBody('POST', '/sessions'), { serviceId: 'svc1', type: 'Bind' });
  assert.deepEqual(session, { serviceId: 'svc1', type: 'Bind' });
  const config = sampleBody(management.requestBody('POST', '/configs'), { configTypeId: 't1', data: { a: 1 } }, { extraField: true }) as Record<string, unknown>;
  assert.equal(config.configTypeId, 't1');
  assert.deepEqual(config.data, { a: 1 });
  assert.equal(config.extraField, true);
  const first = sampleBody(management.requestBody('POST', '/config-types')) as { name: string };
  const second = sampleBody(management.requestBody('POST', '/config-types')) as { name: string };
  assert.notEqual(first.name, second.name, 'two creates do not collide on their names');
});
