import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { type Identity } from '../model/entities.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import { ApiSessionService } from './api-session-service.ts';
import { hashToken } from './ids.ts';
import { ModelWriter } from './model-writer.ts';

async function setup(timeoutMs = 30 * 60_000, activityBatchSize = 250) {
  const { store, node: log, close } = await openTestModel({ prefix: 'edgeward-sessions-' });
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const writer = new ModelWriter(log);
  const sessions = new ApiSessionService(store, writer, clock, { timeoutMs, activityBatchSize });
  const at = new Date(clock.now()).toISOString();
  const identity: Identity = {
    id: 'ident-1', createdAt: at, updatedAt: at, tags: {}, name: 'grace', typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
    authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
  };
  await writer.write({ type: 'identity.create', identity });
  const open = () => sessions.create({ identity, authenticatorId: 'auth-1', authMethod: 'password', ipAddress: '127.0.0.1', configTypes: [], authQueries: [], isMfaRequired: false });
  return { store, log, clock, sessions, open, close };
}

test('the token resolves its session and only its hash is stored', async () => {
  const { sessions, open, close } = await setup();
  const { session, token } = await open();
  assert.match(token, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(session.tokenHash, hashToken(token));
  assert.ok(!JSON.stringify(session).includes(token));
  assert.equal(sessions.resolve(token)?.id, session.id);
  assert.equal(sessions.resolve('00000000-0000-4000-8000-000000000000'), undefined);
  await close();
});

test('inactivity ends a session; activity pushes the end back', async () => {
  const { sessions, clock, open, close } = await setup(30 * 60_000);
  const { session, token } = await open();
  clock.advance(20 * 60_000);
  sessions.touch(session);
  clock.advance(20 * 60_000);
  assert.ok(sessions.resolve(token), 'activity 20 minutes ago keeps the session alive');
  clock.advance(10 * 60_000 + 1);
  assert.equal(sessions.resolve(token), undefined, '30 minutes without activity ends it');
  assert.equal(await sessions.sweepExpired(), 1);
  assert.equal(sessions.list().length, 0);
  await close();
});

test('activity is flushed as one command per batch, not one per request', async () => {
  const { sessions, log, clock, open, close } = await setup(30 * 60_000, 2);
  const opened = await Promise.all([open(), open(), open()]);
  const before = log.appliedIndex();
  for (let i = 0; i < 100; i++) for (const { session } of opened) sessions.touch(session);
  assert.equal(log.appliedIndex(), before, 'touches alone write nothing');
  clock.advance(5_000);
  for (const { session } of opened) sessions.touch(session);
  assert.equal(await sessions.flushActivity(), 3);
  assert.equal(log.appliedIndex(), before + 2, 'three sessions in batches of two: two commands');
  const stored = sessions.get(opened[0]!.session.id)!;
  assert.equal(stored.lastActivityAt, new Date(clock.now()).toISOString());
  assert.equal(await sessions.flushActivity(), 0, 'nothing new, nothing written');
  await close();
});

test('ending a session refuses its token at once', async () => {
  const { sessions, open, close } = await setup();
  const { session, token } = await open();
  await sessions.end([session.id], 'administrative');
  assert.equal(sessions.resolve(token), undefined);
  await close();
});

test('touchIds records activity for stored sessions (an edge connection held) and ignores ids that name none', async () => {
  const { sessions, clock, open, close } = await setup(60_000);
  const { session, token } = await open();
  clock.advance(50_000);
  sessions.touchIds([session.id, 'no-such-session']);
  clock.advance(50_000);
  assert.equal(sessions.resolve(token)?.id, session.id, 'alive 100 s into a 60 s timeout: touched at 50 s');
  assert.equal(await sessions.flushActivity(), 1, 'only the stored session is written');
  clock.advance(10_000);
  assert.equal(sessions.resolve(token), undefined);
  await close();
});
