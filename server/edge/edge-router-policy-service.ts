// Edge router policies and service edge router policies: their management operations, and the grants they add up
// to (edge-router-access.ts) read from the model. Role syntax and unique names are checked here; that every `@id`
// names an existing entity is checked by the apply, in log order. System policies (one per tunneler-enabled router)
// are derived from the routers and can be neither changed nor deleted.
import type { Clock } from '../../common/time/clock.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import type { EntityBody } from '../model/commands.ts';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import { edgeRouterPolicyTables } from '../model/edge-router-policy-entities.ts';
import type { Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import { roleSyntaxProblem, type RoleHolder } from '../model/policy-roles.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { rowsSelected } from '../store/role-selection.ts';
import {
  allEdgeRouterPolicies,
  edgeRouterPoliciesOf,
  isSystemPolicyId,
  policiesSelectingRouter,
  routersForService,
  routersOf,
  serviceEdgeRouterPoliciesOf,
  systemEdgeRouterPolicies,
  type ShownEdgeRouterPolicy,
} from './edge-router-access.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { rolesMatch } from '../model/policy-roles.ts';
import { tableVersion } from './cache-keys.ts';
import { IdentityRouterIndex } from './identity-router-index.ts';

export type EdgeRouterPolicyInput = EntityBody<EdgeRouterPolicy>;
export type ServiceEdgeRouterPolicyInput = EntityBody<ServiceEdgeRouterPolicy>;

export class EdgeRouterPolicyService {
  /** The routers-per-identity index, built again on the first question after the routers or policies change. */
  private identityRouters: { readonly version: string; readonly index: IdentityRouterIndex } | undefined;

  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  // ---- edge router policies

  listEdgeRouterPolicies(): ShownEdgeRouterPolicy[] {
    return allEdgeRouterPolicies({ routers: this.routers(), policies: this.erpTable().all() });
  }

  getEdgeRouterPolicy(id: string): ShownEdgeRouterPolicy {
    const stored = this.erpTable().get(id);
    if (stored) return { ...stored, isSystem: false };
    const system = isSystemPolicyId(id) ? systemEdgeRouterPolicies(this.routers()).find((policy) => policy.id === id) : undefined;
    if (!system) throw EdgeError.notFound('edge router policy', id);
    return system;
  }

  async createEdgeRouterPolicy(input: EdgeRouterPolicyInput): Promise<{ id: string }> {
    const at = this.now();
    const policy: EdgeRouterPolicy = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    this.checkEdgeRouterPolicy(policy);
    const written = await this.writer.write<{ id: string }>({ type: 'edgeRouterPolicy.create', policy });
    return { id: written.value.id };
  }

  async updateEdgeRouterPolicy(id: string, input: EdgeRouterPolicyInput): Promise<void> {
    const current = this.editableEdgeRouterPolicy(id, 'changed');
    this.checkEdgeRouterPolicy({ ...current, ...input });
    await this.writer.write({ type: 'edgeRouterPolicy.update', id, at: this.now(), policy: input });
  }

  async deleteEdgeRouterPolicy(id: string): Promise<void> {
    this.editableEdgeRouterPolicy(id, 'deleted');
    await this.writer.write({ type: 'edgeRouterPolicy.delete', id });
  }

  /** The stored policy; a system one is refused (it follows its router, not an administrator). */
  editableEdgeRouterPolicy(id: string, verb: 'changed' | 'deleted'): EdgeRouterPolicy {
    const policy = this.getEdgeRouterPolicy(id);
    if (policy.isSystem) throw new EdgeError('ENTITY_CAN_NOT_BE_DELETED', { code: 'ENTITY_CAN_NOT_BE_DELETED', message: `${policy.name} is a system edge router policy and can not be ${verb}` });
    return policy;
  }

  // ---- service edge router policies

  listServiceEdgeRouterPolicies(): ServiceEdgeRouterPolicy[] {
    return this.serpTable().all();
  }

  getServiceEdgeRouterPolicy(id: string): ServiceEdgeRouterPolicy {
    const policy = this.serpTable().get(id);
    if (!policy) throw EdgeError.notFound('service edge router policy', id);
    return policy;
  }

  async createServiceEdgeRouterPolicy(input: ServiceEdgeRouterPolicyInput): Promise<{ id: string }> {
    const at = this.now();
    const policy: ServiceEdgeRouterPolicy = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    this.checkServiceEdgeRouterPolicy(policy);
    const written = await this.writer.write<{ id: string }>({ type: 'serviceEdgeRouterPolicy.create', policy });
    return { id: written.value.id };
  }

  async updateServiceEdgeRouterPolicy(id: string, input: ServiceEdgeRouterPolicyInput): Promise<void> {
    const current = this.getServiceEdgeRouterPolicy(id);
    this.checkServiceEdgeRouterPolicy({ ...current, ...input });
    await this.writer.write({ type: 'serviceEdgeRouterPolicy.update', id, at: this.now(), policy: input });
  }

  async deleteServiceEdgeRouterPolicy(id: string): Promise<void> {
    this.getServiceEdgeRouterPolicy(id);
    await this.writer.write({ type: 'serviceEdgeRouterPolicy.delete', id });
  }

  // ---- what the policies add up to

  /** The routers the identity may connect through. */
  routerIdsForIdentity(identity: RoleHolder): Set<string> {
    const version = tableVersion(this.store, [routerTables.edgeRouters, edgeRouterPolicyTables.edgeRouterPolicies]);
    if (this.identityRouters?.version !== version) {
      this.identityRouters = { version, index: new IdentityRouterIndex({ routers: this.routers(), policies: this.erpTable().all() }) };
    }
    return this.identityRouters.index.routerIdsFor(identity);
  }

  /** The routers that may carry the service. */
  routerIdsForService(service: RoleHolder): Set<string> {
    return routersForService(service, this.serpTable().all(), this.routers());
  }

  edgeRouterPoliciesOfIdentity(identity: RoleHolder): ShownEdgeRouterPolicy[] {
    return edgeRouterPoliciesOf(identity, this.listEdgeRouterPolicies());
  }

  serviceEdgeRouterPoliciesOfService(service: RoleHolder): ServiceEdgeRouterPolicy[] {
    return serviceEdgeRouterPoliciesOf(service, this.serpTable().all());
  }

  edgeRouterPoliciesOfRouter(router: RoleHolder): ShownEdgeRouterPolicy[] {
    return policiesSelectingRouter(router, this.listEdgeRouterPolicies());
  }

  serviceEdgeRouterPoliciesOfRouter(router: RoleHolder): ServiceEdgeRouterPolicy[] {
    return policiesSelectingRouter(router, this.serpTable().all());
  }

  /** The routers a policy's edge router roles select. */
  routersOfPolicy(policy: Pick<EdgeRouterPolicy, 'semantic' | 'edgeRouterRoles'>): EdgeRouter[] {
    return routersOf(policy, this.routers());
  }

  /** The identities an edge router policy's identity roles select. */
  identitiesOfPolicy(policy: Pick<EdgeRouterPolicy, 'semantic' | 'identityRoles'>): Identity[] {
    return rowsSelected(this.store.table<Identity>(tables.identities), [{ roles: policy.identityRoles, semantic: policy.semantic }]);
  }

  /** The services a service edge router policy's service roles select. */
  servicesOfPolicy(policy: Pick<ServiceEdgeRouterPolicy, 'semantic' | 'serviceRoles'>): Service[] {
    return this.store.table<Service>(serviceTables.services).all().filter((service) => rolesMatch(policy.serviceRoles, policy.semantic, service));
  }

  /** The identities that may connect through the router. */
  identitiesOfRouter(router: RoleHolder): Identity[] {
    const policies = this.edgeRouterPoliciesOfRouter(router);
    return rowsSelected(this.store.table<Identity>(tables.identities), policies.map((policy) => ({ roles: policy.identityRoles, semantic: policy.semantic })));
  }

  /** The services the router may carry. */
  servicesOfRouter(router: RoleHolder): Service[] {
    const policies = this.serviceEdgeRouterPoliciesOfRouter(router);
    return this.store.table<Service>(serviceTables.services).all().filter((service) => policies.some((policy) => rolesMatch(policy.serviceRoles, policy.semantic, service)));
  }

  private checkEdgeRouterPolicy(policy: EdgeRouterPolicy): void {
    checkRoles(policy, ['identityRoles', 'edgeRouterRoles']);
    // System policies' names are taken too, though they are not stored.
    if (isSystemPolicyId(policy.name) && this.listEdgeRouterPolicies().some((other) => other.isSystem && other.name === policy.name)) {
      throw EdgeError.validation('name', 'duplicate value in unique index', policy.name);
    }
    const violation = this.erpTable().violationFor(policy);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private checkServiceEdgeRouterPolicy(policy: ServiceEdgeRouterPolicy): void {
    checkRoles(policy, ['serviceRoles', 'edgeRouterRoles']);
    const violation = this.serpTable().violationFor(policy);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private routers(): EdgeRouter[] {
    return this.store.table<EdgeRouter>(routerTables.edgeRouters).all();
  }

  private erpTable() {
    return this.store.table<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies);
  }

  private serpTable() {
    return this.store.table<ServiceEdgeRouterPolicy>(edgeRouterPolicyTables.serviceEdgeRouterPolicies);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}

function checkRoles<P>(policy: P, fields: ReadonlyArray<keyof P>): void {
  for (const field of fields) {
    const problem = roleSyntaxProblem(policy[field] as readonly string[]);
    if (problem) throw EdgeError.validation(String(field), problem.reason, problem.value);
  }
}
