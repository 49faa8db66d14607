// What a cache derived from model rows is keyed by. A table's version: the change counts of the tables it reads
// (every put and delete of a row counts, whether a command, a rolled-back command or a snapshot restore made it), so
// two equal keys mean the same rows, and a cache built at one key answers exactly as the rows would until a command
// touches one of its tables. An entity as role matching sees it: its id and its attributes (a changed attribute is
// another key, so no table of identities needs watching).
import type { RoleHolder } from '../model/policy-roles.ts';
import type { ModelStore } from '../store/model-store.ts';

export function tableVersion(store: ModelStore, tables: readonly string[]): string {
  let key = '';
  for (const name of tables) key += `${store.table(name).changes},`;
  return key;
}

export function holderKey(holder: RoleHolder): string {
  return `${holder.id}\u0000${holder.roleAttributes.join('\u0000')}`;
}
