// What deleting an identity, a service or a config does to identity-specific service configs: the identity's or the
// service's rows go with it; a config in use cannot be deleted (the real controller refuses it: "config is in use by
// identity X for service Y"). Apart from the commands' file so that config-commands.ts can use it without a cycle.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { EntityTable, Row } from '../store/entity-table.ts';
import type { ModelRefusal } from './command-refused.ts';
import { identityServiceConfigTables, type IdentityServiceConfig } from './identity-service-config-entities.ts';

/** Where the rows are read: the store between writes, or an apply's transaction. */
export interface TableReader {
  table<T extends Row>(name: string): EntityTable<T>;
}

/** Removes every identity service config of an identity or a service (part of deleting it). */
export function deleteIdentityServiceConfigsOf(tx: ApplyTransaction, field: 'identityId' | 'serviceId', id: string): void {
  for (const row of tx.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs).findMany(field, id)) {
    tx.delete(identityServiceConfigTables.identityServiceConfigs, row.id);
  }
}

/** Why a config cannot be deleted: identities use it for services (undefined when none does). */
export function configInUseRefusal(reader: TableReader, configId: string): ModelRefusal | undefined {
  const users = reader.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs).findMany('configId', configId);
  if (users.length === 0) return undefined;
  const first = users.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0]!;
  return {
    code: 'CAN_NOT_DELETE_REFERENCED_ENTITY',
    cause: { field: 'identityServiceConfigs', reason: `config is in use by identity ${first.identityId} for service ${first.serviceId}`, value: users.map((row) => ({ identityId: row.identityId, serviceId: row.serviceId })) },
  };
}
