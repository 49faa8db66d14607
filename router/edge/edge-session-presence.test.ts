import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxEdgeSessionsPerMessage, type RouterEdgeSessions } from '../../common/control-channel/control-messages.ts';
import { EdgeSessionPresence, type PresentChannel } from './edge-session-presence.ts';

function presence() {
  const sent: RouterEdgeSessions[] = [];
  const pending: Array<() => void> = [];
  const tracker = new EdgeSessionPresence({ send: (message) => (sent.push(message), true), schedule: (flush) => pending.push(flush) });
  const flush = () => pending.splice(0).forEach((run) => run());
  return { tracker, sent, flush, pending };
}

const channel = (apiSessionId: string, identityId: string, connectionCount = 0): PresentChannel => ({ apiSessionId, identityId, connectionCount });

test('changes within one scheduled flush make one message with each changed session count; a session whose last channel closed is sent with 0', () => {
  const { tracker, sent, flush, pending } = presence();
  const a1 = channel('s1', 'i1');
  const a2 = channel('s1', 'i1');
  const b = channel('s2', 'i2');
  tracker.opened(a1);
  tracker.opened(a2);
  tracker.opened(b);
  assert.equal(pending.length, 1, 'one flush scheduled for the burst');
  flush();
  assert.deepEqual(sent, [{ type: 'router.edgeSessions', reset: false, sessions: [{ apiSessionId: 's1', identityId: 'i1', channels: 2 }, { apiSessionId: 's2', identityId: 'i2', channels: 1 }] }]);
  tracker.closed(a1);
  tracker.closed(b);
  tracker.closed(b);
  flush();
  assert.deepEqual(sent[1]!.sessions, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }, { apiSessionId: 's2', identityId: 'i2', channels: 0 }]);
});

test('the full report after a welcome carries every held session, the first message resetting, at most the bound per message', () => {
  const { tracker } = presence();
  const count = maxEdgeSessionsPerMessage + 5;
  for (let index = 0; index < count; index++) tracker.opened(channel(`s${index}`, `i${index}`));
  const report = tracker.fullReport();
  assert.equal(report.length, 2);
  assert.equal(report[0]!.reset, true);
  assert.equal(report[1]!.reset, false);
  assert.equal(report[0]!.sessions.length, maxEdgeSessionsPerMessage);
  assert.equal(report.flatMap((message) => message.sessions).length, count);
  assert.deepEqual(presence().tracker.fullReport(), [{ type: 'router.edgeSessions', reset: true, sessions: [] }], 'no session: one empty reset');
});

test('figures count open channels and their virtual connections; a channel without a session id is counted but not reported', () => {
  const { tracker, flush, sent } = presence();
  tracker.opened(channel('s1', 'i1', 3));
  tracker.opened(channel('', 'i2', 1));
  flush();
  assert.deepEqual(tracker.figures(), { channels: 2, connections: 4 });
  assert.deepEqual(sent.flatMap((message) => message.sessions).map((session) => session.apiSessionId), ['s1']);
});

test('a change that could not be sent goes with the next message; a welcome\'s full report clears what was pending', () => {
  const sent: RouterEdgeSessions[] = [];
  let up = false;
  const pending: Array<() => void> = [];
  const tracker = new EdgeSessionPresence({ send: (message) => (up ? (sent.push(message), true) : false), schedule: (flush) => pending.push(flush) });
  const flush = () => pending.splice(0).forEach((run) => run());
  const first = channel('s1', 'i1');
  tracker.opened(first);
  flush();
  assert.equal(sent.length, 0);
  up = true;
  tracker.opened(channel('s2', 'i2'));
  flush();
  assert.deepEqual(sent[0]!.sessions.map((session) => [session.apiSessionId, session.channels]), [['s1', 1], ['s2', 1]]);
  up = false;
  tracker.closed(first);
  flush();
  up = true;
  assert.deepEqual(tracker.fullReport()[0]!.sessions.map((session) => session.apiSessionId), ['s2']);
  tracker.opened(channel('s3', 'i3'));
  flush();
  assert.deepEqual(sent.at(-1)!.sessions.map((session) => session.apiSessionId), ['s3'], 'nothing stale after the full report');
});
