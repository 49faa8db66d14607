// One atomic LevelDB write of several operations, as a chained batch: abstract-level's array form validates and
// re-wraps every operation on the main thread first, which costs about twice as much per write, and the raft log
// and the model store each write once per raft round on every controller.
import type { Level } from 'level';

export type LevelOperation = { readonly type: 'put'; readonly key: string; readonly value: unknown } | { readonly type: 'del'; readonly key: string };

export function writeBatch(db: Level<string, unknown>, operations: readonly LevelOperation[], options: { readonly sync?: boolean } = {}): Promise<void> {
  const batch = db.batch();
  for (const operation of operations) {
    if (operation.type === 'put') batch.put(operation.key, operation.value);
    else batch.del(operation.key);
  }
  return batch.write({ sync: options.sync ?? false });
}
