// Identity-specific service configs: for one identity and one service, a config that takes the place of the
// service's own config of the same type in what that identity is shown. One row per identity, service and config
// type (the real controller keeps them the same way), so assigning another config of a type replaces the first.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

export interface IdentityServiceConfig extends BaseEntity {
  readonly identityId: string;
  readonly serviceId: string;
  readonly configTypeId: string;
  readonly configId: string;
}

export const identityServiceConfigTables = {
  identityServiceConfigs: 'identityServiceConfigs',
} as const;

/** The row id: one per identity, service and config type. */
export function identityServiceConfigId(identityId: string, serviceId: string, configTypeId: string): string {
  return `${identityId}/${serviceId}/${configTypeId}`;
}

export function createIdentityServiceConfigTables(): EntityTable<Row>[] {
  return [
    new EntityTable<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs)
      .multiIndex('identityId', (row) => row.identityId)
      .multiIndex('serviceId', (row) => row.serviceId)
      .multiIndex('configId', (row) => row.configId),
  ] as unknown as EntityTable<Row>[];
}
