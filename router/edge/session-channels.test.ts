import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from '../../common/log/logger.ts';
import { SessionChannels, type SessionChannel } from './session-channels.ts';

const lines: string[] = [];
const logger = { debug() {}, info: (msg: string) => void lines.push(msg), warn: (msg: string) => void lines.push(msg), error() {}, child: () => logger } as unknown as Logger;

function channel(apiSessionId: string): SessionChannel & { closedFor?: string } {
  const state: SessionChannel & { closedFor?: string } = { apiSessionId, close: (reason) => void (state.closedFor = reason) };
  return state;
}

test("an ended session's channels are closed with the controller's reason; other sessions' and closed channels are left", () => {
  const channels = new SessionChannels(logger);
  const a1 = channel('a');
  const a2 = channel('a');
  const b = channel('b');
  const gone = channel('c');
  for (const each of [a1, a2, b, gone]) channels.opened(each);
  channels.closed(gone);
  assert.equal(channels.ended({ type: 'ctrl.edgeSessionsEnded', sessions: [{ apiSessionId: 'a', reason: 'API session a was revoked' }, { apiSessionId: 'c', reason: 'x' }, { apiSessionId: 7 }] }), 2);
  assert.equal(a1.closedFor, 'the API session ended: API session a was revoked');
  assert.equal(a2.closedFor, a1.closedFor);
  assert.equal(b.closedFor, undefined);
  assert.equal(gone.closedFor, undefined);
  assert.equal(channels.ended({ sessions: [{ apiSessionId: 'a', reason: 'again' }] }), 0, 'closed once');
  assert.equal(channels.ended({ sessions: 'nope' }), 0);
  assert.equal(channels.ended(null), 0);
  assert.ok(lines.includes('edge sessions ended message ignored: malformed'));
});
