// Configs for services: config types (a name and a JSON schema) and configs (data of one type, checked against its
// schema). Services name the configs they carry; a client asks for the types it understands and sees their data.
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

export type ConfigTypeTarget = 'service' | 'router';

export interface ConfigType extends BaseEntity {
  readonly name: string;
  /** A JSON schema (draft-07) every config of this type must satisfy; `{}` accepts any object. */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly target: ConfigTypeTarget | null;
}

export interface Config extends BaseEntity {
  readonly name: string;
  readonly configTypeId: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export const configTables = {
  configTypes: 'configTypes',
  configs: 'configs',
} as const;

export function createConfigTables(): EntityTable<Row>[] {
  return [
    new EntityTable<ConfigType>(configTables.configTypes).uniqueIndex('name', (row) => row.name),
    new EntityTable<Config>(configTables.configs)
      .uniqueIndex('name', (row) => row.name)
      .multiIndex('configTypeId', (row) => row.configTypeId),
  ] as unknown as EntityTable<Row>[];
}
