// The policy answers a re-check pass over live circuits asks for (live-circuit-check.ts), from the indexes
// `circuit.create` keeps (dial-grants.ts): a pass asks the same questions as the circuits' creation did, and the
// indexes are built again only when a command changed their tables. (Worked out afresh per pass, the routers of each
// identity took seconds at 5,000 routers and 2,500 policies, and a pass every few seconds held up every circuit.)
import type { ServiceAccess } from '../edge/service-access.ts';
import type { RoleHolder } from '../model/policy-roles.ts';
import type { Service } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { DialGrants } from './dial-grants.ts';
import type { RouterGrant } from './router-grant-index.ts';

export interface RouterGrantLookups {
  readonly accessFor: (holder: RoleHolder, serviceId: string) => ServiceAccess | undefined;
  readonly identityRouters: (holder: RoleHolder) => RouterGrant;
  readonly serviceRouters: (serviceId: string) => RouterGrant;
}

const noRouters: RouterGrant = { has: () => false };

export function routerGrantLookups(store: ModelStore, grants: DialGrants): RouterGrantLookups {
  return {
    accessFor: (holder, serviceId) => grants.accessFor(holder, serviceId),
    identityRouters: (holder) => grants.identityRouters(holder),
    serviceRouters: (serviceId) => {
      const service = store.table<Service>(serviceTables.services).get(serviceId);
      return service ? grants.serviceRouters(service) : noRouters;
    },
  };
}
