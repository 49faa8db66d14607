import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import { decideSession, evaluateCheck, evaluateGrant } from './posture-evaluation.ts';
import type { ServiceAccess } from './service-access.ts';

const at = '2026-01-01T00:00:00.000Z';
const t0 = Date.parse(at);
const check = (id: string, timeoutSeconds: number): PostureCheck => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, typeId: 'MFA', roleAttributes: [], timeoutSeconds, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: false, version: 1,
});
const policy = (id: string, type: 'Dial' | 'Bind'): ServicePolicy => ({
  id, createdAt: at, updatedAt: at, tags: {}, name: id, type, semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: ['#all'], postureCheckRoles: [],
});
const service: Service = { id: 'svc', createdAt: at, updatedAt: at, tags: {}, name: 'svc', encryptionRequired: true, configs: [], roleAttributes: [], terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 };

const noMfa = { isMfaComplete: false, mfaCompletedAt: null };
const mfaAt = (ms: number) => ({ isMfaComplete: true, mfaCompletedAt: new Date(ms).toISOString() });

test('an MFA check without a timeout passes once the session has answered MFA', () => {
  assert.deepEqual(pick(evaluateCheck(check('c', -1), noMfa, t0)), { isPassing: false, timeout: -1, timeoutRemaining: -1 });
  assert.deepEqual(pick(evaluateCheck(check('c', 0), mfaAt(t0 - 10 * 86_400_000), t0)), { isPassing: true, timeout: -1, timeoutRemaining: -1 });
});

test('an MFA check with a timeout passes until timeoutSeconds after the answer, counting down', () => {
  const c = check('c', 60);
  assert.deepEqual(pick(evaluateCheck(c, noMfa, t0)), { isPassing: false, timeout: 60, timeoutRemaining: 0 });
  assert.deepEqual(pick(evaluateCheck(c, mfaAt(t0), t0)), { isPassing: true, timeout: 60, timeoutRemaining: 60 });
  assert.deepEqual(pick(evaluateCheck(c, mfaAt(t0), t0 + 59_500)), { isPassing: true, timeout: 60, timeoutRemaining: 1 });
  assert.deepEqual(pick(evaluateCheck(c, mfaAt(t0), t0 + 60_000)), { isPassing: false, timeout: 60, timeoutRemaining: 0 });
  assert.equal(evaluateCheck(c, { isMfaComplete: true, mfaCompletedAt: null }, t0).isPassing, false, 'no answer time: the age is unknown');
});

test('a policy passes when all its checks pass, and one without checks always passes', () => {
  assert.equal(evaluateGrant({ policy: policy('p', 'Dial'), checks: [] }, noMfa, t0).isPassing, true);
  const grant = { policy: policy('p', 'Dial'), checks: [check('forever', -1), check('minute', 60)] };
  assert.equal(evaluateGrant(grant, mfaAt(t0), t0 + 30_000).isPassing, true);
  assert.equal(evaluateGrant(grant, mfaAt(t0), t0 + 90_000).isPassing, false);
});

test('a session needs a grant of its type, and at least one of those grants passing', () => {
  const guarded = { policy: policy('p-mfa', 'Dial'), checks: [check('c', -1)] };
  const access = (grants: ServiceAccess['grants']): ServiceAccess => ({ service, permissions: [...new Set(grants.map((g) => g.policy.type))], grants });

  assert.deepEqual(decideSession(undefined, 'Dial', noMfa, t0), { allowed: false, reason: 'hidden', failing: [] });
  assert.equal((decideSession(access([guarded]), 'Bind', mfaAt(t0), t0) as { reason: string }).reason, 'not-granted');

  const refused = decideSession(access([guarded]), 'Dial', noMfa, t0);
  assert.equal(refused.allowed, false);
  assert.equal(!refused.allowed && refused.reason, 'posture');
  assert.deepEqual(!refused.allowed && refused.failing.map((result) => result.grant.policy.id), ['p-mfa']);

  assert.deepEqual(decideSession(access([guarded]), 'Dial', mfaAt(t0), t0), { allowed: true, passingPolicyIds: ['p-mfa'] });
  const open = { policy: policy('p-open', 'Dial'), checks: [] };
  assert.deepEqual(decideSession(access([guarded, open]), 'Dial', noMfa, t0), { allowed: true, passingPolicyIds: ['p-open'] }, 'one passing policy is enough');
});

function pick(result: { isPassing: boolean; timeout: number; timeoutRemaining: number }) {
  return { isPassing: result.isPassing, timeout: result.timeout, timeoutRemaining: result.timeoutRemaining };
}
