import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeError } from '../edge/edge-error.ts';
import { bodyValidator } from './body-schema.ts';
import { errorEnvelope } from './envelope.ts';
import { isSecretField } from './secret-fields.ts';

function causeOf(run: () => unknown): { field: string; reason: string; value?: unknown } {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof EdgeError);
    return error.cause as { field: string; reason: string; value?: unknown };
  }
  assert.fail('the body was accepted');
}

const secretBearing = bodyValidator({
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 10 },
    password: { type: 'string', maxLength: 100 },
    currentPassword: { type: 'string', maxLength: 100 },
    code: { type: 'string', maxLength: 6 },
    token: { type: 'string', maxLength: 36 },
    nested: { type: 'object', properties: { clientSecret: { type: 'string', maxLength: 4 } } },
  },
});

test('a failure on a secret-bearing field names the field and the rule, never the value', () => {
  const secret = `hunter2-${'x'.repeat(120)}`;
  for (const [field, body] of [
    ['password', { password: secret }],
    ['currentPassword', { currentPassword: secret }],
    ['code', { code: secret }],
    ['token', { token: secret }],
    ['nested.clientSecret', { nested: { clientSecret: secret } }],
  ] as const) {
    const cause = causeOf(() => secretBearing(body));
    assert.equal(cause.field, field);
    assert.match(cause.reason, /must NOT have more than/);
    assert.equal('value' in cause, false, `${field}: no value`);
    assert.doesNotMatch(JSON.stringify(cause), /hunter2/);
  }
  assert.equal('value' in causeOf(() => secretBearing({ password: 12345 })), false, 'nor a value of the wrong type');
});

test('other fields still show the offending value, as the real controller does', () => {
  assert.equal(causeOf(() => secretBearing({ name: 'much-too-long' })).value, 'much-too-long');
});

test('the error envelope drops a value any cause about a secret field still carries', () => {
  const fromService = new EdgeError('COULD_NOT_VALIDATE', { field: 'password', reason: 'too weak', value: 'hunter2' });
  assert.deepEqual(errorEnvelope(fromService, 'r1').error.cause, { field: 'password', reason: 'too weak' });
  const enrollment = new EdgeError('INVALID_ENROLLMENT_TOKEN', { field: 'token', reason: 'unknown', value: 'a-token' });
  assert.deepEqual(errorEnvelope(enrollment, 'r2').error.cause, { field: 'token', reason: 'unknown' });
  const username = new EdgeError('COULD_NOT_VALIDATE', { field: 'username', reason: 'duplicate', value: 'alice' });
  assert.deepEqual(errorEnvelope(username, 'r3').error.cause, { field: 'username', reason: 'duplicate', value: 'alice' });
});

test('secret fields are known by their name or its last word, not by any mention', () => {
  for (const field of ['password', 'currentPassword', 'newPassword', 'token', 'enrollmentToken', 'jwt', 'enrollmentJwt', 'code', 'recoveryCodes', 'clientSecret', 'privateKey', 'primary.updb.password', 'items[0].token']) {
    assert.equal(isSecretField(field), true, field);
  }
  for (const field of ['name', 'username', 'requireExtJwtSigner', 'enrollToTokenEnabled', 'codeLength', 'keyword', 'Content-Type', 'certPem', '(root)']) {
    assert.equal(isSecretField(field), false, field);
  }
});
