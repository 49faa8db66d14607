// The cluster's own identity: one row, made once by the first leader (or the first leader of a cluster from before
// it existed) and never changed. Backups carry it, so a restore can tell this cluster's backup from another's, and
// it survives a restore and a forced recovery (both keep the model). Setting it when it is already set changes
// nothing, so any member may propose it and the first to commit wins.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { ApplyTransaction } from '../store/model-store.ts';
import { refuse } from './require-row.ts';

export interface ClusterIdentity extends Row {
  readonly id: typeof clusterIdentityRowId;
  readonly clusterId: string;
  readonly createdAt: string;
}

export const clusterIdentityTable = 'clusterIdentity';
export const clusterIdentityRowId = 'cluster';

export type ClusterIdentityCommand = { type: 'clusterIdentity.set'; clusterId: string; at: string };

export function createClusterIdentityTables(): EntityTable<Row>[] {
  return [new EntityTable<ClusterIdentity>(clusterIdentityTable)] as unknown as EntityTable<Row>[];
}

/** The cluster id, or undefined before the first leader set it. */
export function clusterIdOf(rows: { table<T extends Row>(name: string): { get(id: string): T | undefined } }): string | undefined {
  return rows.table<ClusterIdentity>(clusterIdentityTable).get(clusterIdentityRowId)?.clusterId;
}

export function applyClusterIdentityCommand(command: ClusterIdentityCommand, tx: ApplyTransaction): unknown {
  if (command.type !== 'clusterIdentity.set') return refuse('COULD_NOT_VALIDATE', 'type', `unknown command ${(command as { type: string }).type}`);
  const existing = tx.table<ClusterIdentity>(clusterIdentityTable).get(clusterIdentityRowId);
  if (existing) return { clusterId: existing.clusterId };
  if (typeof command.clusterId !== 'string' || !/^[A-Za-z0-9-]{8,64}$/.test(command.clusterId)) return refuse('COULD_NOT_VALIDATE', 'clusterId', 'must be 8 to 64 letters, digits or dashes', command.clusterId);
  tx.put<ClusterIdentity>(clusterIdentityTable, { id: clusterIdentityRowId, clusterId: command.clusterId, createdAt: command.at });
  return { clusterId: command.clusterId };
}
