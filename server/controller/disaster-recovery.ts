// The offline disaster-recovery commands, run on a stopped controller's data folder:
// - `controller restore <ctrl.yml> <backup>` seeds a new one-member cluster from a backup (store/model-backup-file.ts):
//   the backup is checked whole first (format, checksum, end mark, trust domain, tables), the data folder must hold
//   no cluster state, and only then is anything written: a raft snapshot of the backup's model at the backup's raft
//   index and term, with this controller as the only voter, and the hard state after it. The controller's start
//   restores the model from that snapshot as after any restart.
// - `controller recover <ctrl.yml>` forces a survivor's configuration down to itself (raft/node/forced-recovery.ts),
//   refused while its process runs (the model store is locked) or while a majority of the voters it knows, itself
//   included, answers as controllers with state of their own (then the cluster can elect a leader without it).
// Both leave a note in the data folder that the next start logs and reports as a `members.changed` event.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { Configuration } from '../raft/core/types.ts';
import { forceSingleVoter, lastStoredConfiguration } from '../raft/node/forced-recovery.ts';
import { openRaftFiles } from '../raft/node/local-raft.ts';
import { clusterIdOf } from '../model/cluster-identity.ts';
import { ModelStateMachine } from '../model/model-state-machine.ts';
import { createModelTables } from '../model/entities.ts';
import { BackupFileError, readBackupFile, type BackupHeader } from '../store/model-backup-file.ts';
import { ModelStore } from '../store/model-store.ts';
import type { ControllerOptions } from './controller-options.ts';

/** A refusal: nothing was written; the message says why and what to do. */
export class RecoveryRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecoveryRefused';
  }
}

/** The parts of a data folder that are a cluster member's state. */
const clusterState = ['raft.db', 'snapshots', 'ctrl.db'] as const;
/** What the next start reports (see announceForcedMembership). */
export const forcedMembershipNote = 'membership-forced.json';

export interface ForcedMembership {
  readonly kind: 'restore' | 'recover';
  /** RFC 3339. */
  readonly at: string;
  readonly index: number;
  readonly term: number;
  readonly clusterId: string;
  readonly previousVoters: readonly string[];
  readonly previousNonVoters: readonly string[];
  /** restore: the backup file. */
  readonly backup?: string;
}

export interface RestoreReport {
  readonly header: BackupHeader;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly rows: number;
}

/** `controller restore`: checks the backup and the data folder, then seeds a one-member cluster from the backup. */
export async function restoreFromBackup(options: ControllerOptions, file: string, logger: Logger, nowMs: number): Promise<RestoreReport> {
  let backup;
  try {
    backup = await readBackupFile(file);
  } catch (error) {
    if (error instanceof BackupFileError) throw new RecoveryRefused(`the backup cannot be restored (${error.problem}): ${error.message}`);
    throw error;
  }
  const { header } = backup;
  if (header.trustDomain !== options.cluster.trustDomain) {
    throw new RecoveryRefused(
      `the backup is of another cluster: its trust domain is '${header.trustDomain}' (cluster ${header.clusterId || 'without an id'}), this controller's certificate is of '${options.cluster.trustDomain}'; ` +
        'identities, routers and controllers of that cluster would not be trusted here',
    );
  }
  const known = new Set(createModelTables().map((table) => table.name));
  const unknown = Object.keys(header.tables).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new RecoveryRefused(`the backup holds tables this edgeward does not know (${unknown.join(', ')}): it was written by edgeward ${header.edgewardVersion}; restore it with that version`);
  if (header.index < 1) throw new RecoveryRefused('the backup is of a cluster that had applied nothing (raft index 0): there is nothing to restore');
  const present = clusterState.filter((name) => existsSync(join(options.dataDir, name)));
  if (present.length > 0) {
    throw new RecoveryRefused(`the data folder ${options.dataDir} is not empty (it holds ${present.join(', ')}): restore only into a stopped controller's empty data folder; move those aside first`);
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const term = Math.max(1, header.term);
  const configuration: Configuration = { voters: [options.id], nonVoters: [], addresses: { [options.id]: options.cluster.address } };
  try {
    const files = await openRaftFiles(options.id, options.dataDir, logger);
    try {
      await files.snapshots.save({ meta: { index: header.index, term, configuration }, data: { appliedIndex: header.index, appliedTerm: term, tables: backup.tables } });
      await files.store.setHardState({ term, vote: null, commit: header.index });
    } finally {
      await files.close();
    }
    writeNote(options.dataDir, { kind: 'restore', at: new Date(nowMs).toISOString(), index: header.index, term, clusterId: header.clusterId, previousVoters: [], previousNonVoters: [], backup: file });
  } catch (error) {
    // A full disk half-way: the folder goes back to empty, so the restore can simply be run again.
    for (const name of [...clusterState, forcedMembershipNote]) rmSync(join(options.dataDir, name), { recursive: true, force: true });
    throw error;
  }
  const rows = Object.values(backup.tables).reduce((sum, rows) => sum + rows.length, 0);
  logger.warn('restored a backup into a new one-member cluster', { file, index: header.index, term, clusterId: header.clusterId, rows, takenAt: header.takenAt });
  return { header, sizeBytes: backup.sizeBytes, sha256: backup.sha256, rows };
}

/** Asks the voters at these addresses whether they answer as controllers with state; answers the ids that do. */
export type QuorumProbe = (voters: ReadonlyArray<{ id: string; address: string }>) => Promise<string[]>;

export interface RecoverReport {
  readonly index: number;
  readonly term: number;
  readonly previous: Configuration;
  readonly applied: number;
  readonly clusterId: string;
}

/** `controller recover`: forces this stopped survivor's configuration down to itself. */
export async function recoverQuorum(options: ControllerOptions, probe: QuorumProbe, logger: Logger, nowMs: number): Promise<RecoverReport> {
  if (!existsSync(join(options.dataDir, 'raft.db'))) throw new RecoveryRefused(`nothing to recover: ${options.dataDir} holds no raft log (raft.db)`);
  let store: ModelStore;
  try {
    store = await ModelStore.open(join(options.dataDir, 'ctrl.db'), createModelTables());
  } catch (error) {
    const text = `${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`;
    if (/lock/i.test(text)) throw new RecoveryRefused(`the controller is running (its model store ${join(options.dataDir, 'ctrl.db')} is locked by another process): stop it first`);
    throw error;
  }
  try {
    const files = await openRaftFiles(options.id, options.dataDir, logger);
    try {
      const previous = await lastStoredConfiguration(files.store, files.snapshots);
      const others = previous.voters.filter((id) => id !== options.id);
      const reachable = await probe(others.map((id) => ({ id, address: previous.addresses?.[id] ?? '' })).filter((voter) => voter.address !== ''));
      const majority = Math.floor(previous.voters.length / 2) + 1;
      const selfVotes = previous.voters.includes(options.id) ? 1 : 0;
      if (reachable.length + selfVotes >= majority) {
        throw new RecoveryRefused(
          `a quorum of the cluster is still reachable (${reachable.join(', ')} answer with state of their own; ${reachable.length + selfVotes} of ${previous.voters.length} voters with this one): ` +
            'start this controller and it rejoins them; remove lost members with agent cluster remove instead of recovering',
        );
      }
      const recovered = await forceSingleVoter({ id: options.id, address: options.cluster.address, store: files.store, snapshots: files.snapshots, stateMachine: new ModelStateMachine(store, logger.child('model')), logger });
      await store.flush();
      const clusterId = clusterIdOf(store) ?? '';
      writeNote(options.dataDir, {
        kind: 'recover',
        at: new Date(nowMs).toISOString(),
        index: recovered.index,
        term: recovered.term,
        clusterId,
        previousVoters: recovered.previous.voters,
        previousNonVoters: recovered.previous.nonVoters,
      });
      return { index: recovered.index, term: recovered.term, previous: recovered.previous, applied: recovered.applied, clusterId };
    } finally {
      await files.close();
    }
  } finally {
    await store.close();
  }
}

function writeNote(dataDir: string, note: ForcedMembership): void {
  writeFileSync(join(dataDir, forcedMembershipNote), `${JSON.stringify(note)}\n`, { mode: 0o600 });
}

/** The note restore or recover left, removed once read; undefined when there is none (or it cannot be read). */
export function takeForcedMembershipNote(dataDir: string, logger: Logger): ForcedMembership | undefined {
  const path = join(dataDir, forcedMembershipNote);
  if (!existsSync(path)) return undefined;
  try {
    const note = JSON.parse(readFileSync(path, 'utf8')) as ForcedMembership;
    rmSync(path, { force: true });
    return note;
  } catch (error) {
    logger.warn('could not read the note of a forced membership change', { file: path, error: (error as Error).message });
    rmSync(path, { force: true });
    return undefined;
  }
}
