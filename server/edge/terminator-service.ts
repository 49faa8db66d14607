// The management operations on terminators. An admin makes terminators of their own (a service, a router, a binding
// and an address, with cost and precedence), changes and deletes them; on a terminator a router registered (from
// its Bind policy and the service's host.v1 config) an admin may change cost, precedence and tags only, since the
// rest follows from the policy, and may not delete it (taking the Bind policy away does). Checked against the model
// before a command is proposed; the apply checks the service and router again, in log order. An admin's terminator
// is dialed by its router at its address, so only a binding and address a router can dial are taken
// (common/circuits/terminator-address.ts).
import type { Clock } from '../../common/time/clock.ts';
import { adminTerminatorProblem } from '../../common/circuits/terminator-address.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { AdminTerminatorBody } from '../model/terminator-commands.ts';
import { maxTerminatorCost, terminatorPrecedences, terminatorTables, type AdminTerminator, type TerminatorPrecedence } from '../model/terminator-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import type { TerminatorDirectory, TerminatorRecord } from './terminator-directory.ts';

export interface TerminatorInput extends AdminTerminatorBody {
  readonly identity: string;
  readonly identitySecret: string | null;
}

export class TerminatorService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly directory: TerminatorDirectory,
  ) {}

  list(): Promise<TerminatorRecord[]> {
    return this.directory.list();
  }

  async get(id: string): Promise<TerminatorRecord> {
    const terminator = (await this.directory.list()).find((item) => item.id === id);
    if (!terminator) throw EdgeError.notFound('terminator', id);
    return terminator;
  }

  async create(input: TerminatorInput): Promise<{ id: string }> {
    this.check(input);
    this.checkDialable(input);
    const at = isoTime(this.clock.now());
    const terminator: AdminTerminator = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    const written = await this.writer.write<{ id: string }>({ type: 'terminator.create', terminator });
    return { id: written.value.id };
  }

  /** Replaces what `body` holds; `current` is the terminator as listed (get()). */
  async update(current: TerminatorRecord, body: AdminTerminatorBody): Promise<void> {
    this.check(body);
    const at = isoTime(this.clock.now());
    if (this.store.table<AdminTerminator>(terminatorTables.terminators).get(current.id)) {
      this.checkDialable(body);
      await this.writer.write({ type: 'terminator.update', id: current.id, at, terminator: body });
      return;
    }
    for (const field of ['serviceId', 'routerId', 'binding', 'address'] as const) {
      if (body[field] !== current[field]) {
        const name = field === 'serviceId' ? 'service' : field === 'routerId' ? 'router' : field;
        throw EdgeError.validation(name, `terminator ${current.id} was registered by its router; only cost, precedence and tags can be changed`, body[field]);
      }
    }
    const settings = { id: current.id, serviceId: current.serviceId, routerId: current.routerId, cost: body.cost, precedence: body.precedence, tags: body.tags, createdAt: at, updatedAt: at };
    await this.writer.write({ type: 'terminator.settings', settings });
  }

  async delete(id: string): Promise<void> {
    if (this.store.table<AdminTerminator>(terminatorTables.terminators).get(id)) {
      await this.writer.write({ type: 'terminator.delete', id });
      return;
    }
    await this.get(id);
    throw new EdgeError('ENTITY_CAN_NOT_BE_DELETED', { code: 'ENTITY_CAN_NOT_BE_DELETED', message: `terminator ${id} was registered by its router from a Bind policy; remove the policy (or the router's role) to remove it` });
  }

  /** An administrator's terminator names what its router will dial: a binding and address no router can dial is refused. */
  private checkDialable(input: AdminTerminatorBody): void {
    const problem = adminTerminatorProblem(input.binding, input.address);
    if (problem) throw EdgeError.validation(problem.field, problem.reason, input[problem.field]);
  }

  private check(input: AdminTerminatorBody): void {
    if (!this.store.table(serviceTables.services).get(input.serviceId)) throw EdgeError.validation('service', `service with id ${input.serviceId} not found`, input.serviceId);
    if (!this.store.table(routerTables.edgeRouters).get(input.routerId)) throw EdgeError.validation('router', `router with id ${input.routerId} not found`, input.routerId);
    if (input.binding.trim() === '') throw EdgeError.validation('binding', 'binding must not be empty', input.binding);
    if (input.address.trim() === '') throw EdgeError.validation('address', 'address must not be empty', input.address);
    if (!Number.isInteger(input.cost) || input.cost < 0 || input.cost > maxTerminatorCost) throw EdgeError.validation('cost', `cost must be an integer from 0 to ${maxTerminatorCost}`, input.cost);
    if (!terminatorPrecedences.includes(input.precedence as TerminatorPrecedence)) throw EdgeError.validation('precedence', `precedence must be one of ${terminatorPrecedences.join(', ')}`, input.precedence);
  }
}
