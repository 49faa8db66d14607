// Edge routers. Management API: /edge-routers (create, list, read, PUT, PATCH, delete) and
// /edge-routers/{id}/re-enroll. Client API: /enroll/erott, where a router redeems its one-time token with two CSRs
// (token in the body or `?token=`). Whether a router is online comes from the control channels of the cluster.
// Transit routers (made through /routers or /transit-routers) are not edge routers: these routes answer 404 for them.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { EdgeRouterSettings } from '../../edge/edge-router-service.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { RouterConnection } from '../../edge/router-presence.ts';
import { edgeRouterView, syncStatusOf } from '../views/edge-router-view.ts';
import type { EdgeRouter } from '../../model/router-entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  roleAttributes: schemaParts.stringList,
  isTunnelerEnabled: { type: ['boolean', 'null'] },
  cost: { type: ['integer', 'null'], minimum: 0, maximum: 65535 },
  noTraversal: { type: ['boolean', 'null'] },
  disabled: { type: ['boolean', 'null'] },
  appData: { type: ['object', 'null'] },
  tags: schemaParts.tags,
};

type RouterBody = { [K in keyof typeof properties]?: unknown };

const createBody = bodyValidator<RouterBody>({ type: 'object', required: ['name'], properties });
const putBody = bodyValidator<RouterBody>({ type: 'object', required: ['name'], properties });
const patchBody = bodyValidator<RouterBody>({ type: 'object', properties });
const erottBody = bodyValidator<{ token?: string; serverCertCsr: string; certCsr: string }>({
  type: 'object',
  required: ['serverCertCsr', 'certCsr'],
  properties: {
    token: { type: 'string' },
    serverCertCsr: { type: 'string', minLength: 1, maxLength: 65536 },
    certCsr: { type: 'string', minLength: 1, maxLength: 65536 },
  },
});

const defaults: EdgeRouterSettings = { name: '', roleAttributes: [], isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {}, tags: {} };

/** The body over `current` (PATCH) or over the defaults (create, PUT); null means the default. */
export function routerSettingsOf(body: RouterBody, current?: EdgeRouter): EdgeRouterSettings {
  const pick = <K extends keyof EdgeRouterSettings>(key: K): EdgeRouterSettings[K] =>
    body[key] === undefined ? (current ? current[key] : defaults[key]) : ((body[key] ?? defaults[key]) as EdgeRouterSettings[K]);
  return {
    name: pick('name'),
    roleAttributes: [...pick('roleAttributes')],
    isTunnelerEnabled: pick('isTunnelerEnabled'),
    cost: pick('cost'),
    noTraversal: pick('noTraversal'),
    disabled: pick('disabled'),
    appData: pick('appData'),
    tags: pick('tags'),
  };
}

/** What the list filters and sorts on; isOnline and syncStatus come from the connections of this request. */
export function edgeRouterCatalogue(connected: ReadonlyMap<string, RouterConnection>): FieldCatalogue<EdgeRouter> {
  return {
    id: { type: 'string', get: (row) => row.id },
    createdAt: { type: 'datetime', get: (row) => row.createdAt },
    updatedAt: { type: 'datetime', get: (row) => row.updatedAt },
    name: { type: 'string', get: (row) => row.name },
    roleAttributes: { type: 'string[]', get: (row) => row.roleAttributes },
    isTunnelerEnabled: { type: 'boolean', get: (row) => row.isTunnelerEnabled },
    cost: { type: 'number', get: (row) => row.cost },
    noTraversal: { type: 'boolean', get: (row) => row.noTraversal },
    disabled: { type: 'boolean', get: (row) => row.disabled },
    isVerified: { type: 'boolean', get: (row) => row.isVerified },
    fingerprint: { type: 'string', get: (row) => row.fingerprint },
    isOnline: { type: 'boolean', get: (row) => connected.has(row.id) },
    syncStatus: { type: 'string', get: (row) => syncStatusOf(row, connected.get(row.id)) },
  };
}

export function edgeRouterRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { routers, routerPresence } = services;
  router.get('/edge-routers', admin, async (ctx) => {
    const connected = await routerPresence.connected();
    sendList(ctx, routers.list().filter((row) => !row.isTransitRouter), edgeRouterCatalogue(connected), (row) => edgeRouterView(row, connected.get(row.id)));
  });
  router.post('/edge-routers', admin, async (ctx) => {
    const { id } = await routers.create(routerSettingsOf(await kit.validBody(ctx, createBody)));
    sendCreated(ctx, id, 'edge-routers');
  });
  router.get('/edge-routers/:id', admin, async (ctx) => {
    const row = routers.getEdge(ctx.params.id!);
    const connected = await routerPresence.connected();
    sendDetail(ctx, edgeRouterView(row, connected.get(row.id)));
  });
  router.put('/edge-routers/:id', admin, async (ctx) => {
    routers.getEdge(ctx.params.id!);
    await routers.update(ctx.params.id!, routerSettingsOf(await kit.validBody(ctx, putBody)));
    sendEmpty(ctx);
  });
  router.patch('/edge-routers/:id', admin, async (ctx) => {
    const current = routers.getEdge(ctx.params.id!);
    await routers.update(ctx.params.id!, routerSettingsOf(await kit.validBody(ctx, patchBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/edge-routers/:id', admin, async (ctx) => {
    routers.getEdge(ctx.params.id!);
    await routers.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.post('/edge-routers/:id/re-enroll', admin, async (ctx) => {
    routers.getEdge(ctx.params.id!);
    await routers.reEnroll(ctx.params.id!);
    sendEmpty(ctx);
  });
}

export function clientRouterEnrollmentRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit): void {
  router.post('/enroll/erott', async (ctx: ApiContext) => {
    const body = await kit.validBody(ctx, erottBody);
    const token = typeof ctx.query.token === 'string' && ctx.query.token !== '' ? ctx.query.token : body.token;
    if (!token) throw EdgeError.validation('token', 'token is required, in the query (?token=) or the body');
    const certs = await services.routers.enroll(token, { certCsr: body.certCsr, serverCertCsr: body.serverCertCsr });
    sendDetail(ctx, { cert: certs.cert, serverCert: certs.serverCert, ca: certs.ca });
  });
}
