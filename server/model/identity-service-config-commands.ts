// Commands on identity-specific service configs, and what other commands do to them. Checked in log order:
// the identity, every service and every config named must exist (NOT_FOUND, as the real controller answers), a
// config must be of a type that targets services, and one request may not name two configs of one type for one
// service. A refusal changes nothing: the whole list is checked before any row is written. Deleting the identity or
// the service removes its rows; a config in use here cannot be deleted (as the real controller refuses it).
import type { ApplyTransaction } from '../store/model-store.ts';
import type { Row } from '../store/entity-table.ts';
import { CommandRefused, type ModelRefusal } from './command-refused.ts';
import { findConfigType } from './config-commands.ts';
import type { Config, ConfigType } from './config-entities.ts';
import { configTables } from './config-entities.ts';
import { tables } from './entities.ts';
import { identityServiceConfigId, identityServiceConfigTables, type IdentityServiceConfig } from './identity-service-config-entities.ts';
import type { TableReader } from './identity-service-config-references.ts';
import { unknownCommand } from './require-row.ts';
import { serviceTables } from './service-entities.ts';

/** One `{serviceId, configId}` of the API's `serviceConfigsAssignList`. */
export interface ServiceConfigPair {
  readonly serviceId: string;
  readonly configId: string;
}

export type IdentityServiceConfigCommand =
  /** Sets each pair's config as the identity's config of that config type for that service (replacing another). */
  | { type: 'identityServiceConfig.assign'; identityId: string; at: string; pairs: ServiceConfigPair[] }
  /** Removes the pairs named (each only while that very config is the one assigned); none named: every pair. */
  | { type: 'identityServiceConfig.remove'; identityId: string; pairs: ServiceConfigPair[] }
  /** Deletes rows by id, whatever they name (the data-integrity check's fix for rows whose identity, service or
   * config is gone, which the remove above would refuse). */
  | { type: 'identityServiceConfig.delete'; ids: string[] };

const commandTypes = new Set<string>(['identityServiceConfig.assign', 'identityServiceConfig.remove', 'identityServiceConfig.delete']);

export function isIdentityServiceConfigCommand(command: { type: string }): command is IdentityServiceConfigCommand {
  return commandTypes.has(command.type);
}

/** A pair whose rows were found: the config, and its type. */
export interface ResolvedPair extends ServiceConfigPair {
  readonly configTypeId: string;
}

const notFoundIn = (field: string, entity: string, id: string): ModelRefusal => ({ code: 'NOT_FOUND', cause: { field, reason: `${entity} with id ${id} not found`, value: id } });

/** Why these pairs cannot be assigned to (`assigning`) or removed from the identity, or the pairs with their config
 * types. The identity itself is checked by the caller (a missing one is the request's own NOT_FOUND). */
export function resolveServiceConfigPairs(reader: TableReader, pairs: readonly ServiceConfigPair[], assigning: boolean): { problem: ModelRefusal } | { pairs: ResolvedPair[] } {
  const services = reader.table<Row>(serviceTables.services);
  const configs = reader.table<Config>(configTables.configs);
  const types = reader.table<ConfigType>(configTables.configTypes);
  const resolved: ResolvedPair[] = [];
  const byServiceAndType = new Map<string, string>();
  for (const pair of pairs) {
    if (!services.get(pair.serviceId)) return { problem: notFoundIn('serviceId', 'service', pair.serviceId) };
    const config = configs.get(pair.configId);
    if (!config) return { problem: notFoundIn('configId', 'config', pair.configId) };
    if (assigning) {
      const type = findConfigType(types, config.configTypeId);
      if (type?.target === 'router') {
        return { problem: { code: 'COULD_NOT_VALIDATE', cause: { field: 'configId', reason: `config ${config.name} has config type ${type.name} which does not target services`, value: config.id } } };
      }
      const key = `${pair.serviceId}/${config.configTypeId}`;
      const other = byServiceAndType.get(key);
      if (other !== undefined && other !== config.id) {
        return {
          problem: {
            code: 'COULD_NOT_VALIDATE',
            cause: { field: 'configId', reason: `configs ${other} and ${config.id} are both of config type ${type?.name ?? config.configTypeId} for service ${pair.serviceId}: only one config of a type per service`, value: config.id },
          },
        };
      }
      byServiceAndType.set(key, config.id);
    }
    resolved.push({ serviceId: pair.serviceId, configId: config.id, configTypeId: config.configTypeId });
  }
  return { pairs: resolved };
}

/** Applies one identity service config command; refusals throw CommandRefused (see model-state-machine.ts). */
export function applyIdentityServiceConfigCommand(command: IdentityServiceConfigCommand, tx: ApplyTransaction): unknown {
  if (!isIdentityServiceConfigCommand(command)) return unknownCommand((command as { type: string }).type);
  if (command.type === 'identityServiceConfig.delete') {
    for (const id of command.ids) tx.delete(identityServiceConfigTables.identityServiceConfigs, id);
    return undefined;
  }
  if (!tx.table<Row>(tables.identities).get(command.identityId)) {
    throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `identity with id ${command.identityId} not found` } });
  }
  const rows = tx.table<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs);
  const all = command.type === 'identityServiceConfig.remove' && command.pairs.length === 0;
  if (all) {
    for (const row of rows.findMany('identityId', command.identityId)) tx.delete(identityServiceConfigTables.identityServiceConfigs, row.id);
    return undefined;
  }
  const found = resolveServiceConfigPairs(tx, command.pairs, command.type === 'identityServiceConfig.assign');
  if ('problem' in found) throw new CommandRefused(found.problem);
  for (const pair of found.pairs) {
    const id = identityServiceConfigId(command.identityId, pair.serviceId, pair.configTypeId);
    const current = rows.get(id);
    if (command.type === 'identityServiceConfig.remove') {
      if (current?.configId === pair.configId) tx.delete(identityServiceConfigTables.identityServiceConfigs, id);
      continue;
    }
    if (current?.configId === pair.configId) continue;
    tx.put<IdentityServiceConfig>(identityServiceConfigTables.identityServiceConfigs, {
      id,
      identityId: command.identityId,
      serviceId: pair.serviceId,
      configTypeId: pair.configTypeId,
      configId: pair.configId,
      tags: {},
      createdAt: current?.createdAt ?? command.at,
      updatedAt: command.at,
    });
  }
  return undefined;
}
