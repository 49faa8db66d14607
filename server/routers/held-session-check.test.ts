import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CtrlEdgeSessionsEnded } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import type { SessionStatus } from '../circuits/live-circuit-check.ts';
import type { EdgeSessionRecord } from './edge-session-registry.ts';
import { HeldSessionCheck } from './held-session-check.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger;
const record = (routerId: string, apiSessionId: string, channels = 1): EdgeSessionRecord => ({ routerId, apiSessionId, identityId: 'alice', channels, controllerId: 'c1' });

test('a held session that no longer passes is sent to each router holding it, once while it is still reported', () => {
  let records = [record('r1', 'live'), record('r1', 'revoked'), record('r2', 'revoked'), record('r2', 'closed-already', 0)];
  const ended = new Set(['revoked', 'closed-already']);
  const status: SessionStatus = (id) => (ended.has(id) ? { ok: false, message: `API session ${id} was revoked` } : { ok: true, identity: { id: 'alice', roleAttributes: [] }, posture: { isMfaComplete: false } });
  const sent: Array<[string, CtrlEdgeSessionsEnded]> = [];
  const connected = new Set(['r1']);
  const check = new HeldSessionCheck({ records: () => records, status: () => status, sendTo: (routerId, frame) => connected.has(routerId) && (sent.push([routerId, frame]), true), logger: silent });
  assert.equal(check.pass(), 1, 'r2 is not connected here: nothing sent to it');
  assert.deepEqual(sent, [['r1', { type: 'ctrl.edgeSessionsEnded', sessions: [{ apiSessionId: 'revoked', reason: 'API session revoked was revoked' }] }]]);
  connected.add('r2');
  assert.equal(check.pass(), 1, 'r1 was told already; r2 now is');
  assert.equal(sent[1]![0], 'r2');
  assert.equal(check.pass(), 0);
  // r1 reports the session gone, then held again (a new channel): it is told again.
  records = records.filter((each) => !(each.routerId === 'r1' && each.apiSessionId === 'revoked'));
  assert.equal(check.pass(), 0);
  records = [...records, record('r1', 'revoked')];
  assert.equal(check.pass(), 1);
});

test('nothing is judged before the edge services exist', () => {
  const check = new HeldSessionCheck({ records: () => [record('r1', 's')], status: () => undefined, sendTo: () => assert.fail('nothing to send'), logger: silent });
  assert.equal(check.pass(), 0);
});
