import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Logger } from '../../common/log/logger.ts';
import { TokenExpirySweep, type ExpiringChannel } from './token-expiry-sweep.ts';

function recordingLogger(lines: Array<{ msg: string; fields: Record<string, unknown> }>): Logger {
  const log = (msg: string, fields: Record<string, unknown> = {}) => void lines.push({ msg, fields });
  const logger = { debug: log, info: log, warn: log, error: log, child: () => logger } as unknown as Logger;
  return logger;
}

function channel(expiresAtMs: number | undefined): ExpiringChannel & { closedFor?: string } {
  const state: ExpiringChannel & { closedFor?: string } = {
    identityId: 'alice',
    apiSessionId: 'asid-1',
    tokenExpiresAtMs: expiresAtMs,
    tokenExpired: (nowMs) => state.closedFor === undefined && state.tokenExpiresAtMs !== undefined && state.tokenExpiresAtMs <= nowMs,
    close: (reason) => void (state.closedFor = reason),
  };
  return state;
}

test('a channel whose access token expired is closed with a log line naming its session; legacy channels and live tokens are left', () => {
  const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
  const sweep = new TokenExpirySweep(recordingLogger(lines));
  const legacy = channel(undefined);
  const expiring = channel(10_000);
  const updated = channel(10_000);
  for (const each of [legacy, expiring, updated]) sweep.opened(each);
  assert.equal(sweep.watched, 2, 'a legacy channel is not watched');
  assert.equal(sweep.sweep(9_999), 0);
  (updated as { tokenExpiresAtMs: number }).tokenExpiresAtMs = 70_000;
  assert.equal(sweep.sweep(10_000), 1);
  assert.equal(expiring.closedFor, 'the API session token expired');
  assert.equal(updated.closedFor, undefined, 'an updated token moved the expiry on');
  assert.equal(legacy.closedFor, undefined);
  assert.deepEqual(lines, [{ msg: 'edge channel closed: its access token expired without an update', fields: { identityId: 'alice', apiSessionId: 'asid-1', expiredAt: new Date(10_000).toISOString() } }]);
  sweep.closed(updated);
  assert.equal(sweep.sweep(80_000), 0, 'a channel closed otherwise is forgotten');
});
