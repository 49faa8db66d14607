import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Level } from 'level';
import { silentLogger } from '../../common/log/logger.ts';
import { openLocalRaft } from '../raft/node/local-raft.ts';
import { ModelStore } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import { createModelTables, tables, type Authenticator, type Identity } from './entities.ts';
import { ModelStateMachine } from './model-state-machine.ts';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function openModel(dir: string) {
  const store = await ModelStore.open(join(dir, 'ctrl.db'), createModelTables());
  const machine = new ModelStateMachine(store);
  const raft = await openLocalRaft({ id: 'ctrl', dataDir: dir, stateMachine: machine, logger: silentLogger });
  const propose = (command: ModelCommand) => raft.node.propose(command);
  return { store, machine, log: raft.node, propose, close: async () => { await raft.close(); await store.close(); } };
}

const at = '2026-01-01T00:00:00.000Z';
const identity = (id: string, name: string, extra: Partial<Identity> = {}): Identity => ({
  id, createdAt: at, updatedAt: at, tags: {}, name, typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
  authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null, ...extra,
});
const updb = (id: string, identityId: string, username: string): Authenticator => ({
  id, createdAt: at, updatedAt: at, tags: {}, method: 'updb', identityId, username,
  password: { algorithm: 'scrypt', hash: 'aGFzaA==', salt: 'c2FsdA==', N: 16384, r: 8, p: 1 },
});

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-model-'));
  dirs.push(dir);
  return dir;
}

test('committed commands survive a reopen and the applied index matches the log', async () => {
  const dir = tempDir();
  const first = await openModel(dir);
  const a = await first.propose({ type: 'identity.create', identity: identity('id-a', 'alice') });
  const b = await first.propose({ type: 'identity.create', identity: identity('id-b', 'bob') });
  assert.equal(a.result.ok, true);
  assert.equal(b.index, a.index + 1);
  await first.close();

  const second = await openModel(dir);
  assert.ok(second.store.appliedIndex() >= b.index);
  assert.equal(second.store.table<Identity>(tables.identities).findUnique('name', 'bob')?.id, 'id-b');
  await second.close();
});

test('a refused command changes nothing and reports the clashing field', async () => {
  const dir = tempDir();
  const model = await openModel(dir);
  await model.propose({ type: 'identity.create', identity: identity('id-1', 'carol'), authenticators: [updb('auth-1', 'id-1', 'carol')] });
  // A second identity whose authenticator clashes: the identity must not be half-created.
  const clash = await model.propose({ type: 'identity.create', identity: identity('id-2', 'dave'), authenticators: [updb('auth-2', 'id-2', 'carol')] });
  assert.equal(clash.result.ok, false);
  assert.deepEqual(!clash.result.ok && clash.result.error.cause, { field: 'username', reason: "duplicate value 'carol' in unique index on authenticators store", value: 'carol' });
  assert.equal(model.store.table(tables.identities).get('id-2'), undefined);
  assert.equal(model.store.table(tables.identities).size, 1);
  await model.close();
});

test('deleting an identity removes its authenticators and sessions in the same entry', async () => {
  const dir = tempDir();
  const model = await openModel(dir);
  const changes: string[] = [];
  model.machine.onChanges((applied) => changes.push(...applied.changes.map((change) => `${applied.index}:${change.eventType}:${change.entityType}`)));
  await model.propose({ type: 'identity.create', identity: identity('id-1', 'erin'), authenticators: [updb('auth-1', 'id-1', 'erin')] });
  const removed = await model.propose({ type: 'identity.delete', id: 'id-1' });
  assert.equal(model.store.table(tables.authenticators).size, 0);
  assert.ok(changes.includes(`${removed.index}:deleted:authenticators`));
  assert.ok(changes.includes(`${removed.index}:deleted:identities`));
  await model.close();
});

test('a burst of proposals is group-committed in order', async () => {
  const dir = tempDir();
  const model = await openModel(dir);
  const proposals = await Promise.all(
    Array.from({ length: 200 }, (_, i) => model.propose({ type: 'identity.create', identity: identity(`id-${i}`, `user-${i}`) })),
  );
  const indexes = proposals.map((proposal) => proposal.index);
  assert.deepEqual(indexes, [...indexes].sort((x, y) => x - y));
  assert.equal(new Set(indexes).size, 200);
  assert.equal(model.store.table(tables.identities).size, 200);
  await model.close();
});

test('entries written to the log but not applied are replayed on open', async () => {
  const dir = tempDir();
  const model = await openModel(dir);
  await model.propose({ type: 'identity.create', identity: identity('id-1', 'frank') });
  await model.close();
  // Simulate a crash between log append and apply: roll the store's applied index back by reopening it alone.
  const store = await ModelStore.open(join(dir, 'ctrl.db'), createModelTables());
  await store.applyBatch([{ index: 0 }], () => undefined);
  assert.equal(store.appliedIndex(), 0);
  await store.close();
  const reopened = await openModel(dir);
  assert.equal(reopened.store.table<Identity>(tables.identities).findUnique('name', 'frank')?.id, 'id-1');
  assert.equal(reopened.store.table(tables.identities).size, 1, 'replayed once');
  assert.equal(reopened.store.appliedIndex(), reopened.log.status().lastIndex);
  await reopened.close();
});

test('a data dir written by the one-voter log of the first release opens, and nothing is applied twice', async () => {
  const dir = tempDir();
  // The first release's raft.db: entries as {term, command} and the term alone under stable!term.
  const legacy = new Level<string, unknown>(join(dir, 'raft.db'), { valueEncoding: 'json' });
  await legacy.open();
  await legacy.put('stable!term', 3);
  await legacy.put(`log!${'1'.padStart(16, '0')}`, { term: 3, command: { type: 'identity.create', identity: identity('id-1', 'legacy-one') } });
  await legacy.put(`log!${'2'.padStart(16, '0')}`, { term: 3, command: { type: 'identity.create', identity: identity('id-2', 'legacy-two') } });
  await legacy.close();
  // Its model had applied the first entry only.
  const store = await ModelStore.open(join(dir, 'ctrl.db'), createModelTables());
  await store.applyBatch([{ index: 1 }], (_, tx) => tx.put(tables.identities, identity('id-1', 'legacy-one')));
  await store.close();

  const model = await openModel(dir);
  assert.equal(model.store.table(tables.identities).size, 2, 'the unapplied entry was replayed');
  assert.ok(model.store.appliedIndex() >= 2);
  const next = await model.propose({ type: 'identity.create', identity: identity('id-3', 'after-upgrade') });
  assert.equal(next.result.ok, true);
  assert.ok(next.index > 2);
  await model.close();
});
