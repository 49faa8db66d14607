import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeSessionsIn, EdgeSessionRegistry, readEdgeSessions } from './edge-session-registry.ts';

const registry = () => new EdgeSessionRegistry({ controllerId: 'c1', graceMs: 5000 });

test('a report of a connected router is kept; changes and releases are told apart', () => {
  const sessions = registry();
  sessions.connected('r1');
  assert.deepEqual(sessions.apply('r1', true, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }]), { changed: true, released: [] });
  assert.deepEqual(sessions.apply('r1', false, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }]), { changed: false, released: [] });
  assert.deepEqual(sessions.list(0), [{ routerId: 'r1', apiSessionId: 's1', identityId: 'i1', channels: 1, controllerId: 'c1' }]);
  assert.deepEqual(sessions.apply('r1', false, [{ apiSessionId: 's1', identityId: 'i1', channels: 0 }]), { changed: true, released: ['s1'] });
  assert.deepEqual(sessions.list(0), []);
});

test('a reset report releases what the router no longer reports; a router not connected here is ignored', () => {
  const sessions = registry();
  sessions.connected('r1');
  sessions.apply('r1', true, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }, { apiSessionId: 's2', identityId: 'i2', channels: 2 }]);
  assert.deepEqual(sessions.apply('r1', true, [{ apiSessionId: 's2', identityId: 'i2', channels: 2 }]), { changed: true, released: ['s1'] });
  assert.deepEqual(sessions.apply('r9', true, [{ apiSessionId: 's3', identityId: 'i3', channels: 1 }]), { changed: false, released: [] });
  assert.deepEqual(sessions.heldSessionIds(), ['s2']);
});

test('a disconnected router is listed for the grace, not kept alive, and forgotten after; a dropped one goes at once', () => {
  const sessions = registry();
  sessions.connected('r1');
  sessions.apply('r1', true, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }]);
  assert.deepEqual(sessions.disconnected('r1', 1000), ['s1']);
  assert.deepEqual(sessions.heldSessionIds(), [], 'no controller keeps a session alive for a router it has lost');
  assert.equal(sessions.list(5999).length, 1);
  assert.equal(sessions.list(6000).length, 0);
  assert.deepEqual(sessions.apply('r1', false, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }]), { changed: false, released: [] }, 'a report after the channel closed is ignored');
  sessions.connected('r2');
  sessions.apply('r2', true, [{ apiSessionId: 's2', identityId: 'i2', channels: 1 }]);
  assert.deepEqual(sessions.drop('r2'), ['s2']);
  assert.equal(sessions.list(0).length, 0);
});

test('a welcome starts the router afresh and releases what its earlier channel reported', () => {
  const sessions = registry();
  sessions.connected('r1');
  sessions.apply('r1', true, [{ apiSessionId: 's1', identityId: 'i1', channels: 1 }]);
  assert.deepEqual(sessions.connected('r1'), ['s1']);
  assert.deepEqual(sessions.list(0), []);
});

test('malformed reports are refused with a reason; peer answers keep only well-formed records', () => {
  assert.equal(readEdgeSessions({ reset: true, sessions: [] }).ok, true);
  assert.deepEqual(readEdgeSessions({ sessions: [] }), { ok: false, reason: 'reset must be a boolean' });
  assert.equal(readEdgeSessions({ reset: false, sessions: [{ apiSessionId: '', identityId: 'i', channels: 1 }] }).ok, false);
  assert.equal(readEdgeSessions({ reset: false, sessions: [{ apiSessionId: 's', identityId: 'i', channels: -1 }] }).ok, false);
  assert.equal(readEdgeSessions({ reset: false, sessions: [{ apiSessionId: 's', identityId: 'i', channels: 1.5 }] }).ok, false);
  assert.equal(readEdgeSessions({ reset: false, sessions: Array.from({ length: 1001 }, (_, index) => ({ apiSessionId: `s${index}`, identityId: 'i', channels: 1 })) }).ok, false);
  assert.equal(readEdgeSessions(null).ok, false);
  const good = { routerId: 'r1', apiSessionId: 's1', identityId: 'i1', channels: 1, controllerId: 'c2' };
  assert.deepEqual(edgeSessionsIn({ edgeSessions: [good, { ...good, channels: 0 }, { ...good, identityId: 7 }, null] }), [good]);
  assert.deepEqual(edgeSessionsIn({ routers: [] }), [], 'a controller from before edge sessions');
});
