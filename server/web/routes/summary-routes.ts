// Management API: `/summary` (how many entities of each kind exist, for UIs that show counts) and
// `/identities/{id}/policy-advice/{serviceId}` (may the identity use the service, and through which routers).
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { countEntities, entityCountSources } from '../../edge/entity-counts.ts';
import { everyRouterReach, policyAdvice, type PolicyAdvice, type RouterReach } from '../../edge/policy-advice.ts';
import { entityRef } from '../views/links.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendDetail } from './route-kit.ts';

export function summaryRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const sources = entityCountSources(services.store, services.terminators);
  router.get('/summary', admin, async (ctx) => sendDetail(ctx, await countEntities(sources)));
}

/** `reach`: which routers an identity and a service may use; every router until edge router policies decide it. */
export function policyAdviceRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>, reach: RouterReach = everyRouterReach(() => services.routers.list())): void {
  router.get('/identities/:id/policy-advice/:serviceId', admin, async (ctx) => {
    const identity = services.identities.get(ctx.params.id!);
    const service = services.overlay.services.get(ctx.params.serviceId!);
    const online = await services.routerPresence.connected();
    const advice = policyAdvice({
      identity,
      service,
      access: services.overlay.access.accessFor(identity).get(service.id),
      routers: services.routers.list(),
      reach,
      onlineRouterIds: new Set(online.keys()),
    });
    sendDetail(ctx, policyAdviceView(advice));
  });
}

function policyAdviceView(advice: PolicyAdvice) {
  return {
    identityId: advice.identity.id,
    identity: entityRef('identities', advice.identity.id, advice.identity.name),
    serviceId: advice.service.id,
    service: entityRef('services', advice.service.id, advice.service.name),
    isBindAllowed: advice.isBindAllowed,
    isDialAllowed: advice.isDialAllowed,
    identityRouterCount: advice.identityRouterCount,
    serviceRouterCount: advice.serviceRouterCount,
    commonRouters: advice.commonRouters.map(({ router, isOnline }) => ({ ...entityRef('edge-routers', router.id, router.name), isOnline })),
  };
}
