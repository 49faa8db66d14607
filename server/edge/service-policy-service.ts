// Service policies: which identities may Dial or Bind which services, under which posture checks. Role syntax is
// checked here; that every `@id` names an existing entity is checked by the apply, in log order.
import type { Clock } from '../../common/time/clock.ts';
import type { EntityBody } from '../model/commands.ts';
import { roleSyntaxProblem } from '../model/policy-roles.ts';
import type { ServicePolicy } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export type ServicePolicyInput = EntityBody<ServicePolicy>;

const roleFields = ['identityRoles', 'serviceRoles', 'postureCheckRoles'] as const;

export class ServicePolicyService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  list(): ServicePolicy[] {
    return this.store.table<ServicePolicy>(serviceTables.servicePolicies).all();
  }

  find(id: string): ServicePolicy | undefined {
    return this.store.table<ServicePolicy>(serviceTables.servicePolicies).get(id);
  }

  get(id: string): ServicePolicy {
    const policy = this.find(id);
    if (!policy) throw EdgeError.notFound('service policy', id);
    return policy;
  }

  async create(input: ServicePolicyInput): Promise<{ id: string }> {
    const at = this.now();
    const policy: ServicePolicy = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    this.check(policy);
    const written = await this.writer.write<{ id: string }>({ type: 'servicePolicy.create', policy });
    return { id: written.value.id };
  }

  async update(id: string, input: ServicePolicyInput): Promise<void> {
    const current = this.get(id);
    this.check({ ...current, ...input });
    await this.writer.write({ type: 'servicePolicy.update', id, at: this.now(), policy: input });
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'servicePolicy.delete', id });
  }

  private check(policy: ServicePolicy): void {
    for (const field of roleFields) {
      const problem = roleSyntaxProblem(policy[field]);
      if (problem) throw EdgeError.validation(field, problem.reason, problem.value);
    }
    const violation = this.store.table<ServicePolicy>(serviceTables.servicePolicies).violationFor(policy);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
