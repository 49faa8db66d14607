// Services of the overlay network (what identities dial and bind; not to be confused with these edge services):
// their management operations, checked against the model before a command is proposed. The apply checks again.
import type { Clock } from '../../common/time/clock.ts';
import type { EntityBody } from '../model/commands.ts';
import { serviceConfigsProblem } from '../model/config-commands.ts';
import type { Config, ConfigType } from '../model/config-entities.ts';
import { configTables } from '../model/config-entities.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import type { ConfigService } from './config-service.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export type ServiceInput = EntityBody<Service>;

/** The terminator strategies the real controller registers; an empty one means the default. */
export const terminatorStrategies = ['smartrouting', 'weighted', 'random', 'ha'] as const;
export const defaultTerminatorStrategy = 'smartrouting';

export class NetworkServiceService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly configs: ConfigService,
  ) {}

  list(): Service[] {
    return this.store.table<Service>(serviceTables.services).all();
  }

  find(id: string): Service | undefined {
    return this.store.table<Service>(serviceTables.services).get(id);
  }

  get(id: string): Service {
    const service = this.find(id);
    if (!service) throw EdgeError.notFound('service', id);
    return service;
  }

  async create(input: ServiceInput): Promise<{ id: string }> {
    const at = this.now();
    const service: Service = { ...input, configs: this.configs.serviceConfigIds(input.configs), id: newEntityId(), createdAt: at, updatedAt: at };
    this.check(service);
    const written = await this.writer.write<{ id: string }>({ type: 'service.create', service });
    return { id: written.value.id };
  }

  /** Replaces every field but encryptionRequired, which is fixed at creation (the real controller ignores changes). */
  async update(id: string, input: ServiceInput): Promise<void> {
    const current = this.get(id);
    const service: ServiceInput = { ...input, configs: this.configs.serviceConfigIds(input.configs), encryptionRequired: current.encryptionRequired };
    this.check({ ...current, ...service });
    await this.writer.write({ type: 'service.update', id, at: this.now(), service });
  }

  /** Deletes the service and every session opened to it. */
  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'service.delete', id });
  }

  private check(service: Service): void {
    // Checked again by the apply, in log order (a config may be deleted meanwhile).
    const problem = serviceConfigsProblem(this.store.table<Config>(configTables.configs), this.store.table<ConfigType>(configTables.configTypes), service.configs);
    if (problem) throw EdgeError.validation(problem.field, problem.reason, problem.value);
    if (!(terminatorStrategies as readonly string[]).includes(service.terminatorStrategy)) {
      throw EdgeError.validation('terminatorStrategy', `invalid terminator strategy, expected one of ${terminatorStrategies.join(', ')}`, service.terminatorStrategy);
    }
    const violation = this.store.table<Service>(serviceTables.services).violationFor(service);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
