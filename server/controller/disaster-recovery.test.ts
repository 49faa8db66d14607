import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { silentLogger } from '../../common/log/logger.ts';
import { FileSnapshotStore } from '../raft/storage/file-snapshot-store.ts';
import { writeBackupFile } from '../store/model-backup-file.ts';
import type { ControllerOptions } from './controller-options.ts';
import { RecoveryRefused, forcedMembershipNote, recoverQuorum, restoreFromBackup, takeForcedMembershipNote } from './disaster-recovery.ts';

const root = mkdtempSync(join(tmpdir(), 'disaster-recovery-'));
after(() => rmSync(root, { recursive: true, force: true }));

const optionsFor = (name: string) => ({ id: 'ctrl1', dataDir: join(root, name), cluster: { trustDomain: 'edgeward.test', address: 'tls:127.0.0.1:6262' } }) as unknown as ControllerOptions;
const header = { edgewardVersion: 'v1', clusterId: 'c1c1c1c1-0000', trustDomain: 'edgeward.test', controllerId: 'ctrl9', index: 40, term: 3, takenAt: '2026-11-29T08:00:00.000Z' };
const identity = { id: 'i1', name: 'kept', createdAt: 'x', updatedAt: 'x' };

test('a restore writes a raft snapshot at the backup index and term with this controller as the only voter, and a note for the next start', async () => {
  const { path } = await writeBackupFile(join(root, 'backups', 'good.json'), header, { identities: [identity], clusterIdentity: [{ id: 'cluster', clusterId: header.clusterId, createdAt: 'x' } as never] });
  const options = optionsFor('restored');
  const report = await restoreFromBackup(options, path, silentLogger, Date.parse('2026-11-30T00:00:00Z'));
  assert.equal(report.rows, 2);
  const snapshots = await FileSnapshotStore.open(join(options.dataDir, 'snapshots'));
  const latest = await snapshots.latest();
  await snapshots.close();
  assert.deepEqual(latest?.meta, { index: 40, term: 3, configuration: { voters: ['ctrl1'], nonVoters: [], addresses: { ctrl1: 'tls:127.0.0.1:6262' } } });
  assert.deepEqual((latest?.data as { tables: Record<string, unknown[]> }).tables.identities, [identity]);
  assert.ok(existsSync(join(options.dataDir, forcedMembershipNote)));
  const note = takeForcedMembershipNote(options.dataDir, silentLogger);
  assert.deepEqual([note?.kind, note?.index, note?.clusterId, note?.backup], ['restore', 40, header.clusterId, path]);
  assert.equal(takeForcedMembershipNote(options.dataDir, silentLogger), undefined, 'said once');
  await assert.rejects(restoreFromBackup(options, path, silentLogger, 0), (error: unknown) => error instanceof RecoveryRefused && /is not empty \(it holds raft\.db, snapshots\)/.test(error.message));
});

test('a restore refuses a backup of nothing or with tables this build does not know, writing nothing', async () => {
  const empty = await writeBackupFile(join(root, 'backups', 'empty.json'), { ...header, index: 0 }, { identities: [] });
  const future = await writeBackupFile(join(root, 'backups', 'future.json'), header, { identities: [identity], hologramPolicies: [{ id: 'h1' }] });
  for (const [file, reason] of [
    [empty.path, /a cluster that had applied nothing \(raft index 0\)/],
    [future.path, /tables this edgeward does not know \(hologramPolicies\): it was written by edgeward v1/],
  ] as const) {
    const options = optionsFor(`refused-${readdirSync(root).length}`);
    await assert.rejects(restoreFromBackup(options, file, silentLogger, 0), (error: unknown) => error instanceof RecoveryRefused && reason.test(error.message));
    assert.equal(existsSync(options.dataDir), false, 'nothing written');
  }
});

test('recovery refuses a data folder without a raft log', async () => {
  await assert.rejects(recoverQuorum(optionsFor('never-ran'), async () => [], silentLogger, 0), (error: unknown) => error instanceof RecoveryRefused && /nothing to recover: .*never-ran holds no raft log/.test(error.message));
});
