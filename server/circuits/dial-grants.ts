// What a `circuit.create` asks of the policies, answered from indexes kept while the rows they were built from stay
// the same: what an identity may do with a service (service policies, services, posture checks: service-access-index.ts),
// which routers it may use and which routers may carry a service (edge router policies, service edge router
// policies, edge routers: router-grant-index.ts). Each index is built again on the first question after a command
// changed one of its tables (server/edge/cache-keys.ts): so the very next circuit after a policy, service, posture check,
// router or attribute change is decided on the new rows, and between changes a circuit costs a few lookups instead of
// a walk over every policy, service and router. An identity's attributes are part of every key, so a changed
// identity is asked about afresh without any table of identities being watched.
import type { RoleHolder } from '../model/policy-roles.ts';
import type { ServiceAccess } from '../edge/service-access.ts';
import { edgeRouterPolicyTables, type EdgeRouterPolicy, type ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import { routerTables, type EdgeRouter } from '../model/router-entities.ts';
import { serviceTables, type PostureCheck, type Service, type ServicePolicy } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { RouterGrantIndex, type RouterGrant } from './router-grant-index.ts';
import { ServiceAccessIndex } from './service-access-index.ts';
import { tableVersion } from '../edge/cache-keys.ts';

const accessTables = [serviceTables.services, serviceTables.servicePolicies, serviceTables.postureChecks];
const routerGrantTables = [routerTables.edgeRouters, edgeRouterPolicyTables.edgeRouterPolicies, edgeRouterPolicyTables.serviceEdgeRouterPolicies];

export class DialGrants {
  private access: { version: string; index: ServiceAccessIndex } | undefined;
  private routers: { version: string; index: RouterGrantIndex } | undefined;
  /** How many times an index was built (a test tells a kept index from a rebuilt one). */
  builds = 0;

  constructor(private readonly store: ModelStore) {}

  /** What `holder` may do with the service (undefined: nothing), as ServiceAccessService.accessFor(holder).get(serviceId). */
  accessFor(holder: RoleHolder, serviceId: string): ServiceAccess | undefined {
    return this.accessIndex().accessFor(holder, serviceId);
  }

  /** The routers the identity may connect through (routersForIdentity). */
  identityRouters(holder: RoleHolder): RouterGrant {
    return this.routerIndex().identityRouters(holder);
  }

  /** The routers a circuit of the service may pass through (routersCarryingService). */
  serviceRouters(service: RoleHolder): RouterGrant {
    return this.routerIndex().serviceRouters(service);
  }

  private accessIndex(): ServiceAccessIndex {
    const version = tableVersion(this.store, accessTables);
    if (this.access?.version !== version) {
      this.builds++;
      this.access = {
        version,
        index: new ServiceAccessIndex({
          services: this.store.table<Service>(serviceTables.services).all(),
          policies: this.store.table<ServicePolicy>(serviceTables.servicePolicies).all(),
          postureChecks: this.store.table<PostureCheck>(serviceTables.postureChecks).all(),
        }),
      };
    }
    return this.access.index;
  }

  private routerIndex(): RouterGrantIndex {
    const version = tableVersion(this.store, routerGrantTables);
    if (this.routers?.version !== version) {
      this.builds++;
      const routers = this.store.table<EdgeRouter>(routerTables.edgeRouters);
      this.routers = {
        version,
        index: new RouterGrantIndex({
          router: (id) => routers.get(id),
          edgeRouterPolicies: this.store.table<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies).all(),
          serviceEdgeRouterPolicies: this.store.table<ServiceEdgeRouterPolicy>(edgeRouterPolicyTables.serviceEdgeRouterPolicies).all(),
        }),
      };
    }
    return this.routers.index;
  }
}
