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

test('promptOnWake/promptOnUnlock: a wake or unlock after the MFA answer leaves 5 minutes to answer again', () => {
  const wake = { ...check('wake', -1), promptOnWake: true };
  const unlock = { ...check('unlock', 600), promptOnWake: false, promptOnUnlock: true };
  const withState = (answeredMs: number, wokenAt: number | null, unlockedAt: number | null) => ({
    ...mfaAt(answeredMs),
    postureData: { endpointState: { wokenAt: wokenAt === null ? null : new Date(wokenAt).toISOString(), unlockedAt: unlockedAt === null ? null : new Date(unlockedAt).toISOString() } },
  });
  assert.equal(evaluateCheck(wake, withState(t0, null, null), t0 + 3_600_000).isPassing, true, 'never woken: passes');
  assert.equal(evaluateCheck(wake, withState(t0, t0 - 1000, null), t0 + 3_600_000).isPassing, true, 'woken before the answer: passes');
  assert.equal(evaluateCheck(wake, withState(t0, t0 + 10_000, null), t0 + 10_000 + 299_000).isPassing, true, 'inside the grace period');
  assert.equal(evaluateCheck(wake, withState(t0, t0 + 10_000, null), t0 + 10_000 + 300_000).isPassing, false, 'the grace period is over');
  assert.equal(evaluateCheck(wake, withState(t0, null, t0 + 10_000), t0 + 10_000 + 400_000).isPassing, true, 'an unlock does not matter to a wake-only check');
  // With a timeout, the grace period shortens timeoutRemaining.
  assert.deepEqual(pick(evaluateCheck(unlock, withState(t0, null, t0 + 60_000), t0 + 120_000)), { isPassing: true, timeout: 600, timeoutRemaining: 240 });
  assert.deepEqual(pick(evaluateCheck(unlock, withState(t0, null, t0 + 60_000), t0 + 360_000)), { isPassing: false, timeout: 600, timeoutRemaining: 0 });
  // A new answer after the wake clears it.
  assert.equal(evaluateCheck(wake, withState(t0 + 400_000, t0 + 10_000, null), t0 + 500_000).isPassing, true);
});

test('missing or malformed timestamps never throw: the check fails when it needs the time, passes when it does not', () => {
  const wake = { ...check('wake', -1), promptOnWake: true };
  const broken = { isMfaComplete: true, mfaCompletedAt: 'not a time', postureData: { endpointState: { wokenAt: 'garbage', unlockedAt: null } } };
  assert.equal(evaluateCheck(wake, broken, t0).isPassing, false);
  assert.equal(evaluateCheck({ ...check('plain', -1), promptOnWake: false }, { isMfaComplete: true }, t0).isPassing, true);
  assert.equal(evaluateCheck(wake, { ...mfaAt(t0), postureData: { endpointState: { wokenAt: 'garbage', unlockedAt: null } } }, t0 + 1000).isPassing, true, 'an unreadable wake time is no wake');
});

test('device checks report no timeout and fail without data', () => {
  const os: PostureCheck = { ...check('os', -1), typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: [] }] };
  assert.deepEqual(pick(evaluateCheck(os, mfaAt(t0), t0)), { isPassing: false, timeout: -1, timeoutRemaining: -1 });
  const data = { os: { type: 'linux', version: '6.1.0', build: '', lastUpdatedAt: at } };
  assert.deepEqual(pick(evaluateCheck(os, { ...noMfa, postureData: data }, t0)), { isPassing: true, timeout: -1, timeoutRemaining: -1 });
});
