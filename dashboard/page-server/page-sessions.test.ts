import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { PageSessions, sessionIdBytes } from './page-sessions.ts';
import type { PageSession } from './page-sessions.ts';

function sessions(clock: ManualClock, ended: [string, string][] = [], maxSessions = 10) {
  return new PageSessions({
    ttlMs: 60 * 60_000,
    idleTimeoutMs: 10 * 60_000,
    maxSessions,
    now: () => clock.now(),
    randomBytes: (size) => randomBytes(size),
    onEnd: (session: PageSession, reason) => ended.push([session.username, reason]),
  });
}

test('a session id is 256 random bits, base64url; only its digest is kept', () => {
  const store = sessions(new ManualClock());
  const id = store.create('admin');
  assert.equal(sessionIdBytes * 8, 256);
  assert.match(id, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(store.create('admin'), id);
  assert.equal(store.lookup(id)?.username, 'admin');
  assert.equal(store.lookup(`${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`), undefined);
  assert.equal(store.lookup(''), undefined);
  assert.equal(store.lookup(undefined), undefined);
  assert.equal(store.lookup('x'.repeat(500)), undefined);
  assert.ok(!JSON.stringify([...(store as unknown as { sessions: Map<string, unknown> }).sessions.keys()]).includes(id), 'the id itself is not stored');
});

test('a session ends after the idle timeout without requests, and after the ttl whatever happens', () => {
  const clock = new ManualClock();
  const ended: [string, string][] = [];
  const store = sessions(clock, ended);
  const idle = store.create('idle');
  const busy = store.create('busy');
  for (let minute = 5; minute < 60; minute += 5) {
    clock.advance(5 * 60_000);
    assert.ok(store.lookup(busy), `busy at ${minute} min`);
  }
  assert.equal(store.lookup(idle), undefined, 'idle for more than 10 minutes');
  clock.advance(5 * 60_000);
  assert.equal(store.lookup(busy), undefined, 'an hour after login');
  assert.deepEqual(ended, [['idle', 'expired'], ['busy', 'expired']]);
  assert.equal(store.size, 0);
});

test('logout ends a session at once; the oldest is evicted when the store is full', () => {
  const clock = new ManualClock();
  const ended: [string, string][] = [];
  const store = sessions(clock, ended, 2);
  const first = store.create('first', { token: 't1', origin: 'https://c1' });
  clock.advance(1000);
  const second = store.create('second', { token: 't2', origin: 'https://c2' });
  assert.equal(store.newestControllerSession()?.token, 't2');
  clock.advance(1000);
  store.lookup(first);
  assert.equal(store.newestControllerSession()?.token, 't1', 'the most recently active one');
  clock.advance(1000);
  store.create('third');
  assert.equal(store.lookup(second), undefined, 'the least recently used went');
  assert.equal(store.logout(first), true);
  assert.equal(store.logout(first), false);
  assert.equal(store.lookup(first), undefined);
  assert.deepEqual(ended, [['second', 'evicted'], ['first', 'logout']]);
});

test('a controller token the controller refused is dropped, the page session stays', () => {
  const store = sessions(new ManualClock());
  const id = store.create('admin', { token: 'zt', origin: 'https://c1' });
  store.dropControllerSession('zt');
  assert.equal(store.newestControllerSession(), undefined);
  assert.equal(store.lookup(id)?.username, 'admin');
  store.endAll();
  assert.equal(store.size, 0);
});
