// Management API, admin: `/routers` and `/transit-routers`, read-only. In OpenZiti these are the fabric's views of
// routers (every router, and those without the edge); every edgeward router is an edge router, so both list the
// edge routers (`/edge-routers`), in the spec's routerDetail shape. A router not enrolled yet has no certificate:
// its `fingerprint` is "" (the spec requires the field). Create, update and delete go through `/edge-routers`.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { RouterConnection } from '../../edge/router-presence.ts';
import type { EdgeRouter } from '../../model/router-entities.ts';
import type { ApiRouter } from '../api-router.ts';
import type { RequestState } from '../koa-state.ts';
import { link } from '../views/links.ts';
import { edgeRouterCatalogue } from './edge-router-routes.ts';
import { sendDetail, sendList } from './route-kit.ts';

function fabricRouterView(collection: string, router: EdgeRouter, connection: RouterConnection | undefined) {
  return {
    id: router.id,
    createdAt: router.createdAt,
    updatedAt: router.updatedAt,
    tags: router.tags,
    _links: { self: link(`./${collection}/${router.id}`), 'edge-router': link(`./edge-routers/${router.id}`) },
    name: router.name,
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
    isVerified: router.isVerified,
    isOnline: connection !== undefined,
    fingerprint: router.fingerprint ?? '',
    enrollmentToken: router.enrollmentToken,
    enrollmentJwt: router.enrollmentJwt,
    enrollmentCreatedAt: router.enrollmentCreatedAt,
    enrollmentExpiresAt: router.enrollmentExpiresAt,
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
  };
}

export function fabricRouterRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const { routers, routerPresence } = services;
  for (const collection of ['routers', 'transit-routers']) {
    router.get(`/${collection}`, admin, async (ctx) => {
      const connected = await routerPresence.connected();
      sendList(ctx, routers.list(), edgeRouterCatalogue(connected), (row) => fabricRouterView(collection, row, connected.get(row.id)));
    });
    router.get(`/${collection}/:id`, admin, async (ctx) => {
      const row = routers.get(ctx.params.id!);
      sendDetail(ctx, fabricRouterView(collection, row, (await routerPresence.connected()).get(row.id)));
    });
  }
}
