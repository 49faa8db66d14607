import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PostureState } from '../edge/posture-evaluation.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import type { RoleHolder } from '../model/policy-roles.ts';
import type { PostureCheck } from '../model/service-entities.ts';
import { checkLiveCircuits, type LiveCircuitCheckDeps, type LiveCircuit } from './live-circuit-check.ts';

const now = Date.UTC(2026, 0, 1, 12);
const mfaCheck = (timeoutSeconds: number) => ({ id: 'pc', name: 'mfa', typeId: 'MFA', roleAttributes: [], timeoutSeconds }) as unknown as PostureCheck;
const dialAccess = (checks: PostureCheck[] = []) => ({ service: { id: 's1' }, permissions: ['Dial'], grants: [{ policy: { id: 'p1', type: 'Dial' }, checks }] }) as unknown as ServiceAccess;

/** A model of one service `s1`, one enabled router `r1`, sessions by id and each holder's access. */
function model(overrides: Partial<LiveCircuitCheckDeps> & { sessions?: Record<string, { identity: RoleHolder; posture: PostureState }>; access?: Record<string, ServiceAccess> } = {}) {
  const sessions = overrides.sessions ?? { a1: { identity: { id: 'alice', roleAttributes: [] }, posture: { isMfaComplete: false } } };
  const access = overrides.access ?? { alice: dialAccess(), r1: dialAccess() };
  const asked: string[] = [];
  const deps: LiveCircuitCheckDeps = {
    serviceExists: (id) => id === 's1',
    enabledRouter: (id) => (id === 'r1' ? { id, roleAttributes: [] } : undefined),
    sessionStatus: (id) => {
      asked.push(id);
      const found = sessions[id];
      return found ? { ok: true, ...found } : { ok: false, message: 'the API session ended' };
    },
    identityRevoked: () => undefined,
    accessFor: (holder, serviceId) => (serviceId === 's1' ? access[holder.id] : undefined),
    identityRouters: () => new Set(['r1', 'r2']),
    serviceRouters: () => new Set(['r1', 'r2']),
    ...overrides,
  };
  return { deps, asked };
}

const client: LiveCircuit = { circuitId: 'c1', routerId: 'r1', serviceId: 's1', identityId: 'alice', apiSessionId: 'a1' };
const tunnel: LiveCircuit = { circuitId: 'c2', routerId: 'r1', serviceId: 's1', identityId: 'r1' };

test('circuits whose session, identity, access, service and router still hold are left alone', () => {
  assert.equal(checkLiveCircuits([client, tunnel], model().deps, now).size, 0);
});

test('an ended session revokes its circuits (asked once per pass); a disabled identity says so', () => {
  const ended = model({ sessions: {} });
  const revoked = checkLiveCircuits([client, { ...client, circuitId: 'c3' }], ended.deps, now);
  assert.deepEqual([...revoked.keys()], ['c1', 'c3']);
  assert.equal(revoked.get('c1')!.code, 'SESSION_REVOKED');
  assert.deepEqual(ended.asked, ['a1']);
  const disabled = model({ sessions: {}, identityRevoked: () => 'the identity is disabled' });
  assert.deepEqual(checkLiveCircuits([client], disabled.deps, now).get('c1'), { ok: false, code: 'IDENTITY_REVOKED', reason: 'the identity is disabled' });
});

test('a lost Dial grant, a lapsed MFA posture, a deleted service and a disabled ingress router each revoke', () => {
  assert.equal(checkLiveCircuits([client], model({ access: {} }).deps, now).get('c1')!.code, 'ACCESS_REVOKED');
  const answeredAt = new Date(now - 61_000).toISOString();
  const lapsed = model({
    sessions: { a1: { identity: { id: 'alice', roleAttributes: [] }, posture: { isMfaComplete: true, mfaCompletedAt: answeredAt } } },
    access: { alice: dialAccess([mfaCheck(60)]) },
  });
  assert.equal(checkLiveCircuits([client], lapsed.deps, now).get('c1')!.code, 'POSTURE_REVOKED');
  assert.equal(checkLiveCircuits([client], lapsed.deps, now - 2000).size, 0, 'still within the timeout two seconds earlier');
  assert.equal(checkLiveCircuits([{ ...client, serviceId: 'gone' }], model().deps, now).get('c1')!.code, 'SERVICE_REVOKED');
  assert.equal(checkLiveCircuits([{ ...tunnel, routerId: 'r9' }], model().deps, now).get('c2')!.code, 'ROUTER_REVOKED');
});

test('an edge router policy no longer granting the ingress, or a service edge router policy excluding a router of the path, revokes', () => {
  const noIngress = model({ identityRouters: () => new Set(['r2']) });
  assert.deepEqual(checkLiveCircuits([client], noIngress.deps, now).get('c1'), {
    ok: false,
    code: 'ROUTER_POLICY_REVOKED',
    reason: 'no edge router policy lets the identity use the ingress router any more',
  });
  const pathExcluded = model({ serviceRouters: () => new Set(['r1']) });
  assert.equal(checkLiveCircuits([{ ...client, routers: ['r1'] }], pathExcluded.deps, now).size, 0, 'a path on r1 alone still holds');
  assert.deepEqual(checkLiveCircuits([{ ...client, routers: ['r1', 'r2'] }], pathExcluded.deps, now).get('c1'), {
    ok: false,
    code: 'ROUTER_POLICY_REVOKED',
    reason: 'no service edge router policy lets the service use router r2 any more',
  });
  assert.equal(checkLiveCircuits([tunnel], model({ serviceRouters: () => new Set(['r2']) }).deps, now).get('c2')!.code, 'ROUTER_POLICY_REVOKED', 'without a known path, the ingress is checked');
});
