// What a cache derived from model rows is keyed by: the change counts of the tables it reads (every put and delete
// of a row counts, whether a command, a rolled-back command or a snapshot restore made it). Two equal keys mean the
// same rows, so a cache built at one key answers exactly as the rows would until a command touches one of its tables.
import type { ModelStore } from '../store/model-store.ts';

export function tableVersion(store: ModelStore, tables: readonly string[]): string {
  let key = '';
  for (const name of tables) key += `${store.table(name).changes},`;
  return key;
}
