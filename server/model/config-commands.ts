// Commands on config types and configs, and how they apply. Everything that depends on other rows is checked here,
// in log order: a config's data against its type's schema as it stands, a type's configs before it goes, a
// service's configs (they exist, one per type). Deleting a config takes it off every service that carries it, as
// the real controller's link collection does, but a config an identity uses for a service (identity service configs)
// is refused, as the real controller refuses it; a type with configs cannot be deleted, nor can a built-in type.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { EntityTable } from '../store/entity-table.ts';
import { builtinConfigType, builtinConfigTypes, isBuiltinConfigType } from './builtin-config-types.ts';
import { CommandRefused } from './command-refused.ts';
import type { Config, ConfigType } from './config-entities.ts';
import { configTables } from './config-entities.ts';
import { configDataProblem, schemaProblem } from './config-schema.ts';
import { configInUseRefusal } from './identity-service-config-references.ts';
import type { Service } from './service-entities.ts';
import { serviceTables } from './service-entities.ts';

type Body<T> = Omit<T, 'id' | 'createdAt' | 'updatedAt'>;

export type ConfigCommand =
  | { type: 'configType.create'; configType: ConfigType }
  /** Replaces every field; a built-in type's name, schema and target cannot change (its first update stores it). */
  | { type: 'configType.update'; id: string; at: string; configType: Body<ConfigType> }
  | { type: 'configType.delete'; id: string }
  | { type: 'config.create'; config: Config }
  /** The type is fixed at creation. */
  | { type: 'config.update'; id: string; at: string; config: Omit<Body<Config>, 'configTypeId'> }
  /** Also takes the config off every service that carries it (each service updated at `at`). */
  | { type: 'config.delete'; id: string; at: string };

const configCommandTypes = new Set<string>(['configType.create', 'configType.update', 'configType.delete', 'config.create', 'config.update', 'config.delete']);

export function isConfigCommand(command: { type: string }): command is ConfigCommand {
  return configCommandTypes.has(command.type);
}

/** A config type by id: a stored one, or a built-in never changed. */
export function findConfigType(table: EntityTable<ConfigType>, id: string): ConfigType | undefined {
  return table.get(id) ?? builtinConfigType(id);
}

/** A config type by name, built-ins included. */
export function findConfigTypeByName(table: EntityTable<ConfigType>, name: string): ConfigType | undefined {
  const stored = table.findUnique('name', name);
  if (stored) return stored;
  const builtin = builtinConfigTypes.find((type) => type.name === name);
  return builtin && !table.get(builtin.id) ? builtin : undefined;
}

/** Every config type, built-ins included, in id order. */
export function allConfigTypes(table: EntityTable<ConfigType>): ConfigType[] {
  const stored = table.all();
  const unchanged = builtinConfigTypes.filter((type) => !table.get(type.id));
  if (unchanged.length === 0) return stored;
  return [...stored, ...unchanged].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const invalid = (field: string, reason: string, value?: unknown) => new CommandRefused({ code: 'COULD_NOT_VALIDATE', cause: value === undefined ? { field, reason } : { field, reason, value } });

/** Applies one config command; refusals throw CommandRefused (see model-state-machine.ts). */
export function applyConfigCommand(command: ConfigCommand, tx: ApplyTransaction): unknown {
  const types = tx.table<ConfigType>(configTables.configTypes);
  switch (command.type) {
    case 'configType.create': {
      checkConfigType(types, command.configType);
      tx.put<ConfigType>(configTables.configTypes, command.configType);
      return { id: command.configType.id };
    }
    case 'configType.update': {
      const current = findConfigType(types, command.id);
      if (!current) throw notFound('config type', command.id);
      const next: ConfigType = { ...command.configType, id: command.id, createdAt: current.createdAt, updatedAt: command.at };
      if (isBuiltinConfigType(command.id)) {
        const changed = (['name', 'schema', 'target'] as const).find((field) => JSON.stringify(current[field]) !== JSON.stringify(next[field]));
        if (changed) throw invalid(changed, `${current.name} is a built-in config type: only its tags can change`);
      }
      checkConfigType(types, next);
      tx.put<ConfigType>(configTables.configTypes, next);
      return undefined;
    }
    case 'configType.delete': {
      const current = findConfigType(types, command.id);
      if (!current) throw notFound('config type', command.id);
      if (isBuiltinConfigType(command.id)) {
        throw new CommandRefused({ code: 'ENTITY_CAN_NOT_BE_DELETED', cause: { code: 'ENTITY_CAN_NOT_BE_DELETED', message: `${current.name} is a built-in config type and can not be deleted` } });
      }
      const configs = tx.table<Config>(configTables.configs).findMany('configTypeId', command.id);
      if (configs.length > 0) {
        throw new CommandRefused({
          code: 'CAN_NOT_DELETE_REFERENCED_ENTITY',
          cause: { field: 'configs', reason: `cannot delete config type ${command.id}, as configs of that type exist`, value: configs.map((config) => config.id).sort() },
        });
      }
      tx.delete(configTables.configTypes, command.id);
      return undefined;
    }
    case 'config.create': {
      const { config } = command;
      const type = findConfigType(types, config.configTypeId);
      if (!type) throw invalid('configTypeId', `config type with id ${config.configTypeId} not found`, config.configTypeId);
      requireConformingData(type, config.data);
      tx.put<Config>(configTables.configs, config);
      return { id: config.id };
    }
    case 'config.update': {
      const current = requireConfig(tx, command.id);
      const type = findConfigType(types, current.configTypeId);
      if (!type) throw invalid('configTypeId', `config type with id ${current.configTypeId} not found`, current.configTypeId);
      requireConformingData(type, command.config.data);
      tx.put<Config>(configTables.configs, { ...command.config, id: command.id, configTypeId: current.configTypeId, createdAt: current.createdAt, updatedAt: command.at });
      return undefined;
    }
    case 'config.delete': {
      requireConfig(tx, command.id);
      const inUse = configInUseRefusal(tx, command.id);
      if (inUse) throw new CommandRefused(inUse);
      for (const service of tx.table<Service>(serviceTables.services).all()) {
        if (service.configs.includes(command.id)) {
          tx.put<Service>(serviceTables.services, { ...service, configs: service.configs.filter((id) => id !== command.id), updatedAt: command.at });
        }
      }
      tx.delete(configTables.configs, command.id);
      return undefined;
    }
  }
}

/** Why a service cannot carry these configs: one does not exist, or two are of one type (the real controller's
 * rule: one config of each type per service). Undefined when it can. */
export function serviceConfigsProblem(configs: EntityTable<Config>, types: EntityTable<ConfigType>, configIds: readonly string[]): { field: string; reason: string; value: string[] } | undefined {
  const missing = configIds.filter((id) => !configs.get(id));
  if (missing.length > 0) return { field: 'configs', reason: 'no configs found with the given ids', value: missing };
  const byType = new Map<string, Config>();
  for (const id of configIds) {
    const config = configs.get(id)!;
    const other = byType.get(config.configTypeId);
    if (other && other.id !== config.id) {
      const typeName = findConfigType(types, config.configTypeId)?.name ?? '<not found>';
      return { field: 'configs', reason: `duplicate configs named ${other.name} and ${config.name} found for config type ${typeName}. Only one config of a given typed is allowed per service`, value: [...configIds] };
    }
    byType.set(config.configTypeId, config);
  }
  return undefined;
}

/** Refuses a service's configs as serviceConfigsProblem finds them. */
export function requireServiceConfigs(tx: ApplyTransaction, configIds: readonly string[]): void {
  const problem = serviceConfigsProblem(tx.table<Config>(configTables.configs), tx.table<ConfigType>(configTables.configTypes), configIds);
  if (problem) throw invalid(problem.field, problem.reason, problem.value);
}

function checkConfigType(types: EntityTable<ConfigType>, configType: ConfigType): void {
  const builtinNamed = builtinConfigTypes.find((type) => type.name === configType.name && type.id !== configType.id && !types.get(type.id));
  if (builtinNamed) throw invalid('name', `duplicate value '${configType.name}' in unique index on configTypes store`, configType.name);
  const problem = schemaProblem(configType.schema);
  if (problem) throw invalid(problem.field, problem.reason);
}

function requireConformingData(type: ConfigType, data: Readonly<Record<string, unknown>>): void {
  const problem = configDataProblem(type.schema, data);
  if (problem) throw invalid(problem.field, `${problem.reason} (config type ${type.name})`, problem.value);
}

function requireConfig(tx: ApplyTransaction, id: string): Config {
  const row = tx.table<Config>(configTables.configs).get(id);
  if (!row) throw notFound('config', id);
  return row;
}

function notFound(entity: string, id: string): CommandRefused {
  return new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `${entity} with id ${id} not found` } });
}
