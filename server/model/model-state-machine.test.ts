import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Level } from 'level';
import { createMemoryLogger, silentLogger } from '../../common/log/logger.ts';
import { openLocalRaft } from '../raft/node/local-raft.ts';
import { RaftNode } from '../raft/node/raft-node.ts';
import { InProcessTransport } from '../raft/node/raft-transport.ts';
import { seededRandom } from '../raft/sim/seeded-random.ts';
import { MemoryRaftStore } from '../raft/storage/memory-raft-store.ts';
import { MemorySnapshotStore } from '../raft/storage/memory-snapshot-store.ts';
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

test('failed password attempts lock the identity at maxAttempts, for the duration, ending its sessions', async () => {
  const model = await openModel(tempDir());
  await model.propose({ type: 'identity.create', identity: identity('id-l', 'locky'), authenticators: [updb('auth-l', 'id-l', 'locky')] });
  await model.propose({
    type: 'apiSession.create',
    session: { id: 's-l', createdAt: at, updatedAt: at, tags: {}, tokenHash: 'h', identityId: 'id-l', authenticatorId: 'auth-l', authMethod: 'password', ipAddress: '', configTypes: [], authQueries: [], isMfaRequired: false, isMfaComplete: false, lastActivityAt: at },
  });
  const fail = () => model.propose({ type: 'authenticator.loginFailed', id: 'auth-l', at, maxAttempts: 3, lockoutMinutes: 10 });
  assert.deepEqual((await fail()).result, { ok: true, value: { locked: false, failedAttempts: 1 } });
  await model.propose({ type: 'authenticator.loginSucceeded', id: 'auth-l' });
  await fail();
  await fail();
  assert.equal(model.store.table<Identity>(tables.identities).get('id-l')!.disabledAt, null, 'a success reset the count: two failures since');
  assert.deepEqual((await fail()).result, { ok: true, value: { locked: true, failedAttempts: 3 } });
  const locked = model.store.table<Identity>(tables.identities).get('id-l')!;
  assert.equal(locked.disabledAt, at);
  assert.equal(locked.disabledUntil, '2026-01-01T00:10:00.000Z');
  assert.equal(model.store.table(tables.apiSessions).get('s-l'), undefined, 'the lockout ended the session');
  await model.propose({ type: 'identity.enable', id: 'id-l', at });
  assert.equal(model.store.table<Identity>(tables.identities).get('id-l')!.disabledAt, null);
  await model.close();
});

test('an enrollment is redeemed once, never after it expires, and creates its authenticator in the same entry', async () => {
  const model = await openModel(tempDir());
  await model.propose({ type: 'identity.create', identity: identity('id-e', 'enrollee') });
  const enrollment = { id: 'en-1', createdAt: at, updatedAt: at, tags: {}, method: 'updb' as const, identityId: 'id-e', token: 'tok-1', jwt: 'jwt', expiresAt: '2026-01-01T01:00:00.000Z', username: 'enrollee' };
  await model.propose({ type: 'enrollment.create', enrollment });
  const again = await model.propose({ type: 'enrollment.create', enrollment: { ...enrollment, id: 'en-2', token: 'tok-2' } });
  assert.equal(again.result.ok ? 'ok' : again.result.error.code, 'ENROLLMENT_EXISTS');
  const late = await model.propose({ type: 'enrollment.complete', id: 'en-1', token: 'tok-1', at: '2026-01-01T01:00:00.000Z', authenticator: updb('auth-e', 'id-e', 'enrollee') });
  assert.equal(late.result.ok ? 'ok' : late.result.error.code, 'INVALID_ENROLLMENT_TOKEN');
  assert.equal(model.store.table(tables.authenticators).get('auth-e'), undefined, 'a refused redemption creates nothing');

  assert.ok(model.store.table(tables.enrollments).get('en-1'), 'an expired enrollment stays until deleted');
  await model.propose({ type: 'enrollment.delete', id: 'en-1' });
  await model.propose({ type: 'enrollment.create', enrollment: { ...enrollment, id: 'en-3', token: 'tok-3' } });
  const first = await model.propose({ type: 'enrollment.complete', id: 'en-3', token: 'tok-3', at, authenticator: updb('auth-e', 'id-e', 'enrollee') });
  assert.equal(first.result.ok, true);
  const second = await model.propose({ type: 'enrollment.complete', id: 'en-3', token: 'tok-3', at, authenticator: updb('auth-f', 'id-e', 'enrollee2') });
  assert.equal(second.result.ok ? 'ok' : second.result.error.code, 'INVALID_ENROLLMENT_TOKEN');
  assert.equal(model.store.table(tables.enrollments).get('en-3'), undefined);
  assert.ok(model.store.table(tables.authenticators).get('auth-e'));
  await model.close();
});

test('policies and signers in use cannot be deleted; the default policy cannot be deleted and is stored on update', async () => {
  const model = await openModel(tempDir());
  const signer = { id: 'sig-1', createdAt: at, updatedAt: at, tags: {}, name: 'idp', issuer: 'https://idp', audience: 'edge', enabled: true, certPem: null, jwksEndpoint: 'https://idp/jwks', kid: null, claimsProperty: 'sub', useExternalId: false, externalAuthUrl: null, clientId: null, scopes: [], targetToken: null, commonName: null, fingerprint: null, notBefore: null, notAfter: null };
  await model.propose({ type: 'extJwtSigner.create', signer });
  const primary = { cert: { allowed: true, allowExpiredCerts: true }, updb: { allowed: true, minPasswordLength: 5, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 }, extJwt: { allowed: true, allowedSigners: ['sig-1'] } };
  const dangling = await model.propose({ type: 'authPolicy.create', policy: { id: 'p-0', createdAt: at, updatedAt: at, tags: {}, name: 'bad', primary: { ...primary, extJwt: { allowed: true, allowedSigners: ['missing'] } }, secondary: { requireTotp: false, requireExtJwtSigner: null } } });
  assert.equal(dangling.result.ok ? 'ok' : dangling.result.error.code, 'COULD_NOT_VALIDATE');
  await model.propose({ type: 'authPolicy.create', policy: { id: 'p-1', createdAt: at, updatedAt: at, tags: {}, name: 'uses-signer', primary, secondary: { requireTotp: false, requireExtJwtSigner: null } } });
  const signerInUse = await model.propose({ type: 'extJwtSigner.delete', id: 'sig-1' });
  assert.equal(signerInUse.result.ok ? 'ok' : signerInUse.result.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  await model.propose({ type: 'identity.create', identity: identity('id-p', 'policy-holder', { authPolicyId: 'p-1' }) });
  const policyInUse = await model.propose({ type: 'authPolicy.delete', id: 'p-1' });
  assert.equal(policyInUse.result.ok ? 'ok' : policyInUse.result.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  const unknownPolicy = await model.propose({ type: 'identity.create', identity: identity('id-q', 'orphan', { authPolicyId: 'nope' }) });
  assert.equal(unknownPolicy.result.ok ? 'ok' : unknownPolicy.result.error.code, 'COULD_NOT_VALIDATE');
  const deleteDefault = await model.propose({ type: 'authPolicy.delete', id: 'default' });
  assert.equal(deleteDefault.result.ok ? 'ok' : deleteDefault.result.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
  await model.propose({ type: 'authPolicy.update', id: 'default', at, policy: { tags: {}, name: 'Default', primary, secondary: { requireTotp: true, requireExtJwtSigner: null } } });
  assert.equal(model.store.table<{ id: string; secondary: { requireTotp: boolean } }>(tables.authPolicies).get('default')!.secondary.requireTotp, true);
  await model.close();
});

test('a command whose apply throws is refused on every member, changes nothing, and no node stops', async () => {
  const ids = ['m1', 'm2', 'm3'];
  const transport = new InProcessTransport();
  const members = await Promise.all(
    ids.map(async (id, i) => {
      const store = await ModelStore.open(join(tempDir(), 'ctrl.db'), createModelTables());
      const logger = createMemoryLogger();
      const node = await RaftNode.start({
        id, store: new MemoryRaftStore(), snapshots: new MemorySnapshotStore(), stateMachine: new ModelStateMachine(store, logger), transport,
        timing: { tickMs: 10, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 3000 }, snapshotPolicy: { intervalMs: 3_600_000, threshold: 1000, trailingLogs: 5 },
        bootstrap: { voters: ids, nonVoters: [] }, random: seededRandom(40 + i), logger: silentLogger,
      });
      return { store, logger, node };
    }),
  );
  try {
    const deadline = Date.now() + 5000;
    let leader = members.find((member) => member.node.isLeader());
    while (!leader && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      leader = members.find((member) => member.node.isLeader());
    }
    assert.ok(leader, 'a leader is elected');
    // The identity goes in first, then the malformed authenticator throws a TypeError: the identity must go too.
    const half: ModelCommand = { type: 'identity.create', identity: identity('id-h', 'half'), authenticators: [null as unknown as Authenticator] };
    const bad = await leader.node.propose(half);
    assert.deepEqual(bad.result, { ok: false, error: { code: 'INVALID_FIELD', cause: { field: '(root)', reason: 'the request could not be applied to the model; nothing was changed' } } });
    const fine: ModelCommand = { type: 'identity.create', identity: identity('id-g', 'good') };
    const good = await leader.node.propose(fine);
    assert.equal(good.result.ok, true);
    for (const member of members) {
      await member.node.waitForApplied(good.index, 3000);
      assert.equal(member.node.failed, undefined);
      assert.equal(member.store.table(tables.identities).get('id-h'), undefined);
      assert.ok(member.store.table(tables.identities).get('id-g'));
      const line = member.logger.lines.find((fields) => fields.msg === 'raft command could not be applied; refused');
      assert.equal(line?.index, bad.index);
      assert.equal(line?.type, 'identity.create');
      assert.match(String(line?.error), /^TypeError/);
    }
  } finally {
    for (const member of members) {
      await member.node.close();
      await member.store.close();
    }
  }
});
