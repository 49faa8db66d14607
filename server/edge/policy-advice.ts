// Policy advice: may this identity use this service, and through which edge routers. The real controller's verdict
// (`/identities/{id}/policy-advice/{serviceId}`): Dial and Bind from the service policies, the routers the identity may
// use, the routers that may carry the service, and the routers both allow. Pure: the facts in, the advice out.
import type { Identity } from '../model/entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import type { Service } from '../model/service-entities.ts';
import type { ServiceAccess } from './service-access.ts';

/**
 * Which edge routers an identity, and a service, may use: the edge router policies and service edge router policies
 * answer this (server/edge/edge-router-policy-service.ts); `everyRouterReach` is every router, for tests.
 */
export interface RouterReach {
  routerIdsForIdentity(identity: Identity): ReadonlySet<string>;
  routerIdsForService(service: Service): ReadonlySet<string>;
}

export function everyRouterReach(routers: () => readonly EdgeRouter[]): RouterReach {
  const all = () => new Set(routers().map((router) => router.id));
  return { routerIdsForIdentity: all, routerIdsForService: all };
}

export interface CommonRouter {
  readonly router: EdgeRouter;
  readonly isOnline: boolean;
}

export interface PolicyAdvice {
  readonly identity: Identity;
  readonly service: Service;
  readonly isDialAllowed: boolean;
  readonly isBindAllowed: boolean;
  readonly identityRouterCount: number;
  readonly serviceRouterCount: number;
  /** In router id order. */
  readonly commonRouters: readonly CommonRouter[];
}

export function policyAdvice(facts: {
  readonly identity: Identity;
  readonly service: Service;
  readonly access: ServiceAccess | undefined;
  readonly routers: readonly EdgeRouter[];
  readonly reach: RouterReach;
  readonly onlineRouterIds: ReadonlySet<string>;
}): PolicyAdvice {
  const identityRouters = facts.reach.routerIdsForIdentity(facts.identity);
  const serviceRouters = facts.reach.routerIdsForService(facts.service);
  const commonRouters = facts.routers
    .filter((router) => identityRouters.has(router.id) && serviceRouters.has(router.id))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((router) => ({ router, isOnline: facts.onlineRouterIds.has(router.id) }));
  const permissions = facts.access?.permissions ?? [];
  return {
    identity: facts.identity,
    service: facts.service,
    isDialAllowed: permissions.includes('Dial'),
    isBindAllowed: permissions.includes('Bind'),
    identityRouterCount: identityRouters.size,
    serviceRouterCount: serviceRouters.size,
    commonRouters,
  };
}
