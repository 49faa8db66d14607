// The `edgeRouters` of a session: the online routers both the identity's edge router policies and the service's
// service edge router policies allow, each with its edge listeners' addresses by protocol, as the real controller
// answers. Presence is asked once per request; grants once per identity and service of the answer.
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { Identity } from '../../model/entities.ts';
import type { ServiceSession } from '../../model/service-entities.ts';
import { sessionEdgeRouterView } from '../views/edge-router-policy-view.ts';

export type SessionEdgeRouters = (session: ServiceSession) => ReturnType<typeof sessionEdgeRouterView>[];

export async function sessionEdgeRouters(services: EdgeServices): Promise<SessionEdgeRouters> {
  const connected = await services.routerPresence.connected();
  const policies = services.overlay.edgeRouterPolicies;
  const cache = new Map<string, ReturnType<typeof sessionEdgeRouterView>[]>();
  return (session) => {
    const key = `${session.identityId}\n${session.serviceId}`;
    const known = cache.get(key);
    if (known) return known;
    const identity = services.identities.find(session.identityId) ?? ({ id: session.identityId, roleAttributes: [] } as Pick<Identity, 'id' | 'roleAttributes'>);
    const service = services.overlay.services.find(session.serviceId);
    const forIdentity = policies.routerIdsForIdentity(identity);
    const forService = service ? policies.routerIdsForService(service) : new Set<string>();
    const answer = services.routers
      .list()
      .filter((router) => forIdentity.has(router.id) && forService.has(router.id) && !router.disabled && connected.has(router.id))
      .map((router) => sessionEdgeRouterView(router, connected.get(router.id)!));
    cache.set(key, answer);
    return answer;
  };
}
