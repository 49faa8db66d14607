// Config types and configs: their management operations, checked against the model before a command is proposed
// (the apply checks again, in log order), and what clients are shown of them: a service's `config` map holds the
// data of its configs whose types the client asked for, by type name.
import type { Clock } from '../../common/time/clock.ts';
import { allConfigTypes, findConfigType, findConfigTypeByName } from '../model/config-commands.ts';
import type { Config, ConfigType } from '../model/config-entities.ts';
import { configTables } from '../model/config-entities.ts';
import { configDataProblem, schemaProblem } from '../model/config-schema.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { EntityTable } from '../store/entity-table.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export type ConfigTypeInput = Omit<ConfigType, 'id' | 'createdAt' | 'updatedAt'>;
export type ConfigInput = Omit<Config, 'id' | 'createdAt' | 'updatedAt'>;
export type ConfigChanges = Omit<ConfigInput, 'configTypeId'>;

/** What a client asks for to see every config type's data. */
export const allConfigTypesMarker = 'all';

export class ConfigService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  private get types(): EntityTable<ConfigType> {
    return this.store.table<ConfigType>(configTables.configTypes);
  }

  private get configs(): EntityTable<Config> {
    return this.store.table<Config>(configTables.configs);
  }

  listTypes(): ConfigType[] {
    return allConfigTypes(this.types);
  }

  findType(id: string): ConfigType | undefined {
    return findConfigType(this.types, id);
  }

  getType(id: string): ConfigType {
    const type = this.findType(id);
    if (!type) throw EdgeError.notFound('config type', id);
    return type;
  }

  async createType(input: ConfigTypeInput): Promise<{ id: string }> {
    const at = this.now();
    const configType: ConfigType = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    this.checkType(configType);
    const written = await this.writer.write<{ id: string }>({ type: 'configType.create', configType });
    return { id: written.value.id };
  }

  async updateType(id: string, input: ConfigTypeInput): Promise<void> {
    const current = this.getType(id);
    this.checkType({ ...current, ...input });
    await this.writer.write({ type: 'configType.update', id, at: this.now(), configType: input });
  }

  async deleteType(id: string): Promise<void> {
    this.getType(id);
    await this.writer.write({ type: 'configType.delete', id });
  }

  list(): Config[] {
    return this.configs.all();
  }

  find(id: string): Config | undefined {
    return this.configs.get(id);
  }

  get(id: string): Config {
    const config = this.find(id);
    if (!config) throw EdgeError.notFound('config', id);
    return config;
  }

  /** The configs of one type, in id order. */
  ofType(typeId: string): Config[] {
    return this.configs.findMany('configTypeId', typeId).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The services that carry a config. */
  servicesOf(configId: string): Service[] {
    return this.store.table<Service>(serviceTables.services).all().filter((service) => service.configs.includes(configId));
  }

  async create(input: ConfigInput): Promise<{ id: string }> {
    const at = this.now();
    const config: Config = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    const type = this.findType(config.configTypeId);
    if (!type) throw EdgeError.validation('configTypeId', `config type with id ${config.configTypeId} not found`, config.configTypeId);
    this.checkConfig(config, type);
    const written = await this.writer.write<{ id: string }>({ type: 'config.create', config });
    return { id: written.value.id };
  }

  async update(id: string, changes: ConfigChanges): Promise<void> {
    const current = this.get(id);
    const type = this.findType(current.configTypeId);
    if (type) this.checkConfig({ ...current, ...changes }, type);
    await this.writer.write({ type: 'config.update', id, at: this.now(), config: changes });
  }

  /** Deletes the config and takes it off every service that carries it. */
  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'config.delete', id, at: this.now() });
  }

  /** A service's `configs` as given (ids, or names as older controllers took them), as ids; unknown ones stay as
   * they are, for the apply to refuse by name. */
  serviceConfigIds(values: readonly string[]): string[] {
    const ids = values.map((value) => (this.configs.get(value) ? value : (this.configs.findUnique('name', value)?.id ?? value)));
    return [...new Set(ids)];
  }

  /** Config types a client asked for (ids or names) as the ids an API session keeps: `all` alone when it is among
   * them; unknown ones are dropped, as the real controller drops them. */
  resolveTypeIds(values: readonly string[]): string[] {
    if (values.includes(allConfigTypesMarker)) return [allConfigTypesMarker];
    const ids: string[] = [];
    for (const value of values) {
      const type = this.findType(value) ?? findConfigTypeByName(this.types, value);
      if (type && !ids.includes(type.id)) ids.push(type.id);
    }
    return ids;
  }

  /** A service's `config`: the data of its configs of the given types (ids, or `all`), by type name. An identity's
   * own configs for the service (`overrides`, config type id → config id) take the place of the service's config of
   * the same type, and add types the service has none of, as on the real controller. */
  configMap(service: Service, typeIds: readonly string[], overrides?: ReadonlyMap<string, string>): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    if (typeIds.length === 0 || (service.configs.length === 0 && !overrides?.size)) return map;
    const all = typeIds.includes(allConfigTypesMarker);
    const ids = overrides?.size ? [...service.configs.filter((id) => !overrides.has(this.configs.get(id)?.configTypeId ?? '')), ...overrides.values()] : service.configs;
    for (const id of ids) {
      const config = this.configs.get(id);
      if (!config || (!all && !typeIds.includes(config.configTypeId))) continue;
      const type = this.findType(config.configTypeId);
      if (type) map[type.name] = config.data;
    }
    return map;
  }

  private checkType(configType: ConfigType): void {
    const builtinClash = findConfigTypeByName(this.types, configType.name);
    if (builtinClash && builtinClash.id !== configType.id) throw EdgeError.validation('name', `duplicate value '${configType.name}' in unique index on configTypes store`, configType.name);
    const problem = schemaProblem(configType.schema);
    if (problem) throw EdgeError.validation(problem.field, problem.reason);
  }

  private checkConfig(config: Config, type: ConfigType): void {
    const problem = configDataProblem(type.schema, config.data);
    if (problem) throw EdgeError.validation(problem.field, `${problem.reason} (config type ${type.name})`, problem.value);
    const violation = this.configs.violationFor(config);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
