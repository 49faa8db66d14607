import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { ManualClock } from '../../common/time/clock.ts';
import { startEdgeSessionControl } from './edge-session-control.ts';
import type { RouterEvent } from './router-hub.ts';

function control() {
  const announced: RouterEvent[] = [];
  const touched: string[][] = [];
  const ended: Array<{ routerId: string; sessions: Array<{ apiSessionId: string; reason: string }> }> = [];
  const logger = createMemoryLogger();
  const clock = new ManualClock(0);
  const sessions = new Map([
    ['s1', 'i1'],
    ['s2', 'i2'],
  ]);
  const edge = startEdgeSessionControl({
    controllerId: 'c1',
    graceMs: 5000,
    sessionIdentity: (id) => sessions.get(id),
    remote: async () => [],
    announce: (event) => announced.push(event),
    endSessions: (routerId, list) => void ended.push({ routerId, sessions: list.map((session) => ({ ...session })) }),
    endDelayMs: 20,
    clock,
    logger,
    refreshIntervalMs: 60_000,
  });
  edge.setKeeper((ids) => touched.push([...ids]), 60_000);
  return { edge, announced, touched, ended, logger, clock };
}

test('a report is checked against the model: a session of another identity, or none, is refused and logged; the router is told to end the one that does not exist', async () => {
  const { edge, announced, ended, logger } = control();
  edge.connected('r1');
  edge.report('r1', { type: 'router.edgeSessions', reset: true, sessions: [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }, { apiSessionId: 's2', identityId: 'i1', channels: 1 }, { apiSessionId: 'nope', identityId: 'i1', channels: 1 }] });
  assert.deepEqual(edge.records().map((record) => record.apiSessionId), ['s1']);
  assert.equal(edge.index.identityConnected('i1'), true);
  assert.equal(edge.index.identityConnected('i2'), false);
  assert.deepEqual(announced, [{ event: 'edgeSessions', routerId: 'r1' }]);
  const refusal = logger.lines.find((line) => line.msg === 'router edge sessions refused: no such API session of that identity');
  assert.deepEqual(refusal?.apiSessions, ['s2', 'nope']);
  // 'nope' ended (or never was) before the report came: never recorded, the held-session check would never end its
  // channels. s2 exists (of another identity): refused only.
  assert.deepEqual(ended, [], 'told after a delay: the graceful ends go first');
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(ended, [{ routerId: 'r1', sessions: [{ apiSessionId: 'nope', reason: 'the API session has ended' }] }]);
  edge.report('r1', { type: 'router.edgeSessions', sessions: 'all' });
  assert.equal(logger.lines.at(-1)?.msg, 'router edge sessions message refused');
  edge.close();
});

test('a session is touched when its last channel closes and when its router disconnects, so its timeout runs from then', () => {
  const { edge, touched, announced } = control();
  edge.connected('r1');
  edge.report('r1', { type: 'router.edgeSessions', reset: true, sessions: [{ apiSessionId: 's1', identityId: 'i1', channels: 2 }, { apiSessionId: 's2', identityId: 'i2', channels: 1 }] });
  edge.report('r1', { type: 'router.edgeSessions', reset: false, sessions: [{ apiSessionId: 's1', identityId: 'i1', channels: 0 }] });
  assert.deepEqual(touched, [['s1']]);
  edge.disconnected('r1', false);
  assert.deepEqual(touched, [['s1'], ['s2']]);
  assert.equal(edge.index.identityConnected('i2'), true, 'listed for the grace');
  assert.deepEqual(announced.at(-1), { event: 'edgeSessions', routerId: 'r1' });
  edge.close();
});
