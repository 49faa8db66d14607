// What a survivor's simulated disk holds when the recovery family forces it to a single voter, read as
// forceSingleVoter reads it (node/forced-recovery.ts): the newest snapshot, the log unless that snapshot superseded
// it, the last configuration, and the state the model and snapshot already cover.
import type { ConfigEntryData } from '../core/raft-core.ts';
import type { Configuration, Entry } from '../core/types.ts';
import type { SurvivorHoldings } from './checkers/recovery-epoch.ts';
import type { SimDisk } from './sim-disk.ts';
import { historyKey } from './sim-state-machine.ts';

export interface DiskHoldings extends SurvivorHoldings {
  /** The configuration the disk holds last (undefined: none, a node that only knew its bootstrap). */
  readonly configuration: Configuration | undefined;
}

export function diskHoldings(disk: SimDisk): DiskHoldings {
  const snapshot = disk.snapshots[0]?.meta;
  const snapshotIndex = snapshot?.index ?? 0;
  const atSnapshot = snapshot ? disk.entries[snapshot.index - disk.first] : undefined;
  const superseded = snapshot !== undefined && disk.entries.length > 0 && (disk.lastIndex < snapshot.index || (atSnapshot !== undefined && atSnapshot.term !== snapshot.term));
  const entries: readonly Entry[] = superseded ? [] : disk.entries.filter((entry) => entry.index > snapshotIndex);
  const byIndex = new Map(entries.map((entry) => [entry.index, entry]));
  let configuration = snapshot?.configuration;
  for (const entry of entries) if (entry.type === 'config') configuration = (entry.data as ConfigEntryData).configuration;
  return {
    node: disk.node,
    covered: Math.max(disk.model.index, snapshotIndex),
    last: Math.max(snapshotIndex, entries[entries.length - 1]?.index ?? 0),
    keyAt: (index) => {
      const entry = byIndex.get(index);
      return entry && historyKey(entry);
    },
    configuration,
  };
}
