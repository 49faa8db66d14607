// Management API: /terminators and /services/:id/terminators. Routers whose tunnel listener hosts services register
// terminators (and they go when the router does); an admin makes more with POST (service, router, binding, address,
// cost, precedence), changes them with PUT (service, router, binding and address required; the rest reset to their
// defaults) or PATCH, and deletes them; on a router-registered one only cost, precedence and tags change
// (terminator-service.ts). Listing asks the other controllers for their routers' terminators (cached briefly), as the
// edge router list does for isOnline. Client API: a service's terminators, for an identity that may Dial or Bind it.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { TerminatorRecord } from '../../edge/terminator-directory.ts';
import { clientTerminatorView, terminatorView } from '../views/terminator-view.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { AdminTerminatorBody } from '../../model/terminator-commands.ts';
import { maxTerminatorCost, terminatorPrecedences, type TerminatorPrecedence } from '../../model/terminator-entities.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

const idText = { type: 'string', minLength: 1, maxLength: 512 };
const bodyProperties = {
  service: idText,
  router: idText,
  binding: { type: 'string', minLength: 1, maxLength: 256 },
  address: { type: 'string', minLength: 1, maxLength: 1024 },
  cost: { type: ['integer', 'null'], minimum: 0, maximum: maxTerminatorCost },
  precedence: { type: ['string', 'null'], enum: [...terminatorPrecedences, null] },
  identity: { type: ['string', 'null'], maxLength: 512 },
  identitySecret: { type: ['string', 'null'], maxLength: 4096 },
  tags: schemaParts.tags,
};
type TerminatorBody = { [K in keyof typeof bodyProperties]?: unknown };
const required = ['service', 'router', 'binding', 'address'];
const createBody = bodyValidator<TerminatorBody>({ type: 'object', required, properties: bodyProperties });
const putBody = bodyValidator<TerminatorBody>({ type: 'object', required, properties: bodyProperties });
const patchBody = bodyValidator<TerminatorBody>({ type: 'object', properties: bodyProperties });

/** The body over `current` (PATCH) or over the defaults (create, PUT: cost 0, precedence default, no tags). */
function terminatorBodyOf(body: TerminatorBody, current?: TerminatorRecord): AdminTerminatorBody {
  const pick = <T>(value: unknown, now: T | undefined, fallback: T): T => (value === undefined ? (current ? (now as T) : fallback) : ((value ?? fallback) as T));
  return {
    serviceId: pick(body.service, current?.serviceId, ''),
    routerId: pick(body.router, current?.routerId, ''),
    binding: pick(body.binding, current?.binding, ''),
    address: pick(body.address, current?.address, ''),
    cost: pick(body.cost, current?.cost, 0),
    precedence: pick<TerminatorPrecedence>(body.precedence, current?.precedence, 'default'),
    tags: pick(body.tags, current?.tags ?? {}, {}),
  };
}

export const terminatorCatalogue: FieldCatalogue<TerminatorRecord> = {
  id: { type: 'string', get: (row) => row.id },
  createdAt: { type: 'datetime', get: (row) => row.createdAt },
  updatedAt: { type: 'datetime', get: (row) => row.updatedAt },
  service: { type: 'string', get: (row) => row.serviceId },
  serviceId: { type: 'string', get: (row) => row.serviceId },
  router: { type: 'string', get: (row) => row.routerId },
  routerId: { type: 'string', get: (row) => row.routerId },
  binding: { type: 'string', get: (row) => row.binding },
  address: { type: 'string', get: (row) => row.address },
  identity: { type: 'string', get: (row) => row.identity },
  cost: { type: 'number', get: (row) => row.cost },
  precedence: { type: 'string', get: (row) => row.precedence },
};

export function terminatorRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const terminators = services.terminatorAdmin;
  const view = (terminator: TerminatorRecord) =>
    terminatorView(terminator, services.overlay.services.find(terminator.serviceId)?.name ?? '', services.routers.find(terminator.routerId)?.name ?? '');
  router.get('/terminators', admin, async (ctx) => sendList(ctx, await services.terminators.list(), terminatorCatalogue, view));
  router.get('/terminators/:id', admin, async (ctx) => sendDetail(ctx, view(await terminators.get(ctx.params.id!))));
  router.post('/terminators', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const identity = typeof body.identity === 'string' ? body.identity : '';
    const identitySecret = typeof body.identitySecret === 'string' ? body.identitySecret : null;
    const { id } = await terminators.create({ ...terminatorBodyOf(body), identity, identitySecret });
    sendCreated(ctx, id, 'terminators');
  });
  router.put('/terminators/:id', admin, async (ctx) => {
    const current = await terminators.get(ctx.params.id!);
    await terminators.update(current, terminatorBodyOf(await kit.validBody(ctx, putBody)));
    sendEmpty(ctx);
  });
  router.patch('/terminators/:id', admin, async (ctx) => {
    const current = await terminators.get(ctx.params.id!);
    await terminators.update(current, terminatorBodyOf(await kit.validBody(ctx, patchBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/terminators/:id', admin, async (ctx) => {
    await terminators.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.get('/services/:id/terminators', admin, async (ctx) => {
    const service = services.overlay.services.get(ctx.params.id!);
    sendList(ctx, (await services.terminators.list()).filter((item) => item.serviceId === service.id), terminatorCatalogue, view);
  });
}

/**
 * Client API: `GET /services/{id}/terminators`, as the real controller answers it: the service's terminators in the
 * client's limited shape, for an identity that may Dial or Bind the service; any other service does not exist for it
 * (404, as `GET /services/{id}`).
 */
export function clientTerminatorRoutes(router: ApiRouter, services: EdgeServices, full: Middleware<RequestState>): void {
  router.get('/services/:id/terminators', full, async (ctx) => {
    const access = services.overlay.access.accessFor(ctx.state.identity!).get(ctx.params.id!);
    if (!access) throw EdgeError.notFound('service', ctx.params.id!);
    const terminators = (await services.terminators.list()).filter((item) => item.serviceId === access.service.id);
    sendList(ctx, terminators, terminatorCatalogue, (terminator) => clientTerminatorView(terminator, access.service.name));
  });
}
