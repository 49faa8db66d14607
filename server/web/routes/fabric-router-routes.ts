// Management API, admin: `/routers` and `/transit-routers`, the fabric's views of every router (edge and transit), in
// the spec's routerDetail shape. A router not enrolled yet has no certificate: its `fingerprint` is "" (the spec
// requires the field).
// Writes: `POST` on either collection makes a transit router (an edge router without the edge: OpenZiti's transit
// router), with a one-time enrollment like an edge router's: `./edgeward router enroll` with its JWT, then it
// links and carries circuits, but policies never grant it to identities or services and `/edge-routers` does not show
// it. `PUT`/`PATCH` change the fabric fields (name, cost, noTraversal, disabled, tags) of any router, keeping an edge
// router's edge fields; `DELETE` deletes any router, as `DELETE /edge-routers/{id}` does (disconnected, enrollment
// gone). Router configs and controller-channel listeners are not supported: a non-empty `configs` or
// `ctrlChanListeners` is refused rather than dropped.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { RouterConnection } from '../../edge/router-presence.ts';
import type { EdgeRouter } from '../../model/router-entities.ts';
import type { ApiRouter } from '../api-router.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import { link } from '../views/links.ts';
import { edgeRouterCatalogue, routerSettingsOf } from './edge-router-routes.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

function fabricRouterView(collection: string, router: EdgeRouter, connection: RouterConnection | undefined) {
  return {
    id: router.id,
    createdAt: router.createdAt,
    updatedAt: router.updatedAt,
    tags: router.tags,
    _links: { self: link(`./${collection}/${router.id}`), ...(router.isTransitRouter ? {} : { 'edge-router': link(`./edge-routers/${router.id}`) }) },
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

/** The spec's routerCreate / routerUpdate / routerPatch. */
const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  cost: { type: ['integer', 'null'], minimum: 0, maximum: 65535 },
  noTraversal: { type: ['boolean', 'null'] },
  disabled: { type: ['boolean', 'null'] },
  tags: schemaParts.tags,
  configs: { type: ['array', 'null'], items: { type: 'string' }, maxItems: 100 },
  ctrlChanListeners: { type: ['object', 'null'] },
};

type FabricRouterBody = { name?: unknown; cost?: unknown; noTraversal?: unknown; disabled?: unknown; tags?: unknown; configs?: string[] | null; ctrlChanListeners?: Record<string, unknown> | null };

const createBody = bodyValidator<FabricRouterBody>({ type: 'object', required: ['name'], properties });
const patchBody = bodyValidator<FabricRouterBody>({ type: 'object', properties });

/** Only the fabric fields, after refusing what edgeward routers do not have. */
function fabricFields(body: FabricRouterBody): FabricRouterBody {
  if (body.configs && body.configs.length > 0) throw EdgeError.validation('configs', 'router configs are not supported: a router reads its configuration from its router.yml', body.configs);
  if (body.ctrlChanListeners && Object.keys(body.ctrlChanListeners).length > 0) {
    throw EdgeError.validation('ctrlChanListeners', 'controller-channel listeners on routers are not supported: routers dial the controllers (ctrl.endpoint in router.yml)', body.ctrlChanListeners);
  }
  const { name, cost, noTraversal, disabled, tags } = body;
  return Object.fromEntries(Object.entries({ name, cost, noTraversal, disabled, tags }).filter(([, value]) => value !== undefined));
}

/** PUT (no `current`: omitted fabric fields reset) or PATCH over `router`; an edge router keeps its edge fields. */
function updatedSettings(router: EdgeRouter, body: FabricRouterBody, patch: boolean) {
  const fabric = routerSettingsOf(fabricFields(body), patch ? router : undefined);
  return { ...fabric, roleAttributes: [...router.roleAttributes], isTunnelerEnabled: router.isTunnelerEnabled, appData: router.appData };
}

export function fabricRouterRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { routers, routerPresence } = services;
  for (const collection of ['routers', 'transit-routers']) {
    router.get(`/${collection}`, admin, async (ctx) => {
      const connected = await routerPresence.connected();
      sendList(ctx, routers.list(), edgeRouterCatalogue(connected), (row) => fabricRouterView(collection, row, connected.get(row.id)));
    });
    router.post(`/${collection}`, admin, async (ctx) => {
      const { id } = await routers.create(routerSettingsOf(fabricFields(await kit.validBody(ctx, createBody))), 'transit');
      sendCreated(ctx, id, collection);
    });
    router.get(`/${collection}/:id`, admin, async (ctx) => {
      const row = routers.get(ctx.params.id!);
      sendDetail(ctx, fabricRouterView(collection, row, (await routerPresence.connected()).get(row.id)));
    });
    router.put(`/${collection}/:id`, admin, async (ctx) => {
      const current = routers.get(ctx.params.id!);
      await routers.update(current.id, updatedSettings(current, await kit.validBody(ctx, createBody), false));
      sendEmpty(ctx);
    });
    router.patch(`/${collection}/:id`, admin, async (ctx) => {
      const current = routers.get(ctx.params.id!);
      await routers.update(current.id, updatedSettings(current, await kit.validBody(ctx, patchBody, { optional: true }), true));
      sendEmpty(ctx);
    });
    router.delete(`/${collection}/:id`, admin, async (ctx) => {
      await routers.delete(ctx.params.id!);
      sendEmpty(ctx);
    });
  }
}
