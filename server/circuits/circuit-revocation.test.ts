import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CtrlCircuitClose } from '../../common/control-channel/control-messages.ts';
import { silentLogger } from '../../common/log/logger.ts';
import { ManualClock } from '../../common/time/clock.ts';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import { CircuitRevocation } from './circuit-revocation.ts';
import type { CircuitVerdict, LiveCircuit } from './live-circuit-check.ts';

const circuit = (id: string, routerId = 'r1', apiSessionId = 'a1'): LiveCircuit => ({ circuitId: id, routerId, serviceId: 's1', identityId: 'alice', apiSessionId });
const change = (entityType: string) => ({ index: 7, command: { type: 'x' }, changes: [{ entityType, id: 'e', kind: 'delete' }] }) as unknown as AppliedChanges;

/** A revocation whose check revokes the circuits of the sessions in `ended`, sending to the routers in `connected`. */
function harness(timing: Partial<ConstructorParameters<typeof CircuitRevocation>[0]['timing']> = {}) {
  const ended = new Set<string>();
  const connected = new Set(['r1', 'r2']);
  const sent: Array<{ routerId: string; frame: CtrlCircuitClose }> = [];
  const clock = new ManualClock();
  const revocation = new CircuitRevocation({
    tables: new Set(['apiSessions']),
    check: (circuits) => {
      const revoked = new Map<string, CircuitVerdict & { ok: false }>();
      for (const live of circuits) if (ended.has(live.apiSessionId!)) revoked.set(live.circuitId, { ok: false, code: 'SESSION_REVOKED', reason: 'the API session ended' });
      return revoked;
    },
    sendTo: (routerId, frame) => {
      if (!connected.has(routerId)) return false;
      sent.push({ routerId, frame });
      return true;
    },
    isConnected: (routerId) => connected.has(routerId),
    clock,
    logger: silentLogger,
    timing: { changeDebounceMs: 5, checkIntervalMs: 60_000, disconnectedRetainMs: 1000, ...timing },
  });
  return { revocation, ended, connected, sent, clock };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

test('a revoking model change closes the circuits of the revoked session at their ingress routers, one message per router and code', async () => {
  const { revocation, ended, sent } = harness();
  revocation.track(circuit('c1'));
  revocation.track(circuit('c2', 'r2'));
  revocation.track(circuit('c3', 'r1', 'a2'));
  ended.add('a1');
  revocation.modelChanged(change('services-we-do-not-watch'));
  await settle();
  assert.equal(sent.length, 0, 'a change of a table that cannot revoke starts no pass');
  revocation.modelChanged(change('apiSessions'));
  await settle();
  assert.deepEqual(sent, [
    { routerId: 'r1', frame: { type: 'ctrl.circuitClose', circuitIds: ['c1'], code: 'SESSION_REVOKED', reason: 'the API session ended' } },
    { routerId: 'r2', frame: { type: 'ctrl.circuitClose', circuitIds: ['c2'], code: 'SESSION_REVOKED', reason: 'the API session ended' } },
  ]);
  assert.equal(revocation.size, 1, 'revoked circuits are no longer tracked');
  revocation.close();
});

test('a circuit the router reported ended is not re-checked; only its own ingress router can end it', () => {
  const { revocation, ended, sent } = harness();
  revocation.track(circuit('c1'));
  revocation.ended('r2', 'c1');
  assert.equal(revocation.size, 1, 'another router cannot end it');
  revocation.ended('r1', 'c1');
  ended.add('a1');
  revocation.pass();
  assert.equal(sent.length, 0);
});

test('a router not connected here gets its revocation once it is back; its circuits are forgotten after the retain time', () => {
  const { revocation, ended, connected, sent, clock } = harness();
  revocation.track(circuit('c1'));
  revocation.track(circuit('c2'));
  connected.delete('r1');
  ended.add('a1');
  revocation.pass();
  assert.equal(sent.length, 0);
  assert.equal(revocation.size, 2, 'kept for when the router is back');
  connected.add('r1');
  revocation.pass();
  assert.deepEqual(sent[0]!.frame.circuitIds, ['c1', 'c2']);
  ended.clear();
  revocation.track(circuit('c3'));
  connected.delete('r1');
  revocation.pass();
  clock.advance(1000);
  revocation.pass();
  assert.equal(revocation.size, 0, 'forgotten after disconnectedRetainMs');
});

test('at most maxTracked circuits are kept, the oldest going first; a throwing check is logged, not thrown', () => {
  const { revocation } = harness({ maxTracked: 2 });
  for (const id of ['c1', 'c2', 'c3']) revocation.track(circuit(id));
  assert.equal(revocation.size, 2);
  const broken = new CircuitRevocation({
    tables: new Set(),
    check: () => {
      throw new Error('store closed');
    },
    sendTo: () => true,
    isConnected: () => true,
    clock: new ManualClock(),
    logger: silentLogger,
  });
  broken.track(circuit('c1'));
  assert.doesNotThrow(() => broken.pass());
});
