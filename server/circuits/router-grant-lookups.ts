// The edge router grants a re-check pass over live circuits asks for (live-circuit-check.ts), read from the model
// once per pass and remembered per identity and per service within it.
import { routersCarryingService, routersForIdentity } from '../edge/edge-router-access.ts';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import { edgeRouterPolicyTables } from '../model/edge-router-policy-entities.ts';
import type { RoleHolder } from '../model/policy-roles.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { routerTables } from '../model/router-entities.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';

export interface RouterGrantLookups {
  readonly identityRouters: (holder: RoleHolder) => ReadonlySet<string>;
  readonly serviceRouters: (serviceId: string) => ReadonlySet<string>;
}

export function routerGrantLookups(store: ModelStore): RouterGrantLookups {
  const routers = store.table<EdgeRouter>(routerTables.edgeRouters).all();
  const erps = store.table<EdgeRouterPolicy>(edgeRouterPolicyTables.edgeRouterPolicies).all();
  const serps = store.table<ServiceEdgeRouterPolicy>(edgeRouterPolicyTables.serviceEdgeRouterPolicies).all();
  const byIdentity = new Map<string, ReadonlySet<string>>();
  const byService = new Map<string, ReadonlySet<string>>();
  return {
    identityRouters: (holder) => {
      let found = byIdentity.get(holder.id);
      if (!found) byIdentity.set(holder.id, (found = routersForIdentity(holder, { routers, policies: erps })));
      return found;
    },
    serviceRouters: (serviceId) => {
      let found = byService.get(serviceId);
      if (!found) {
        const service = store.table<Service>(serviceTables.services).get(serviceId);
        byService.set(serviceId, (found = service ? routersCarryingService(service, serps, routers) : new Set()));
      }
      return found;
    },
  };
}
