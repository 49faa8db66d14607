// Sessions: on the Client API a fully authenticated client opens (POST, 201 with the token, shown once), lists,
// reads and deletes its own Dial and Bind sessions; on the Management API an admin lists (all, or one API
// session's), reads and deletes any.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { serviceSessionView } from '../views/service-session-view.ts';
import { sessionEdgeRouters, type SessionEdgeRouters } from './session-edge-routers.ts';
import type { ServicePolicyType, ServiceSession } from '../../model/service-entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import { detailEnvelope } from '../envelope.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { requireStoredSession, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { serviceSessionCatalogue } from './service-catalogues.ts';

const createBody = bodyValidator<{ serviceId: string; type?: ServicePolicyType | null }>({
  type: 'object',
  required: ['serviceId'],
  properties: {
    serviceId: { type: 'string', minLength: 1, maxLength: 1024 },
    // The real controller opens a Dial session when no type is given.
    type: { type: ['string', 'null'], enum: ['Dial', 'Bind', null] },
    tags: schemaParts.tags,
  },
});

export function clientServiceSessionRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, full: Middleware<RequestState>): void {
  const { overlay } = services;
  const view = (session: ServiceSession, routersOf: SessionEdgeRouters, token?: string) =>
    serviceSessionView(session, { serviceName: overlay.services.find(session.serviceId)?.name ?? '', edgeRouters: routersOf(session) }, token);
  router.get('/sessions', full, async (ctx) => {
    const routersOf = await sessionEdgeRouters(services);
    sendList(ctx, overlay.sessions.forIdentity(ctx.state.identity!.id), serviceSessionCatalogue, (session) => view(session, routersOf));
  });
  router.post('/sessions', full, async (ctx) => {
    const body = await kit.validBody(ctx, createBody);
    const { session, token } = await overlay.sessions.create(ctx.state.identity!, await requireStoredSession(ctx, services), body.serviceId, body.type ?? 'Dial');
    ctx.status = 201;
    ctx.body = detailEnvelope(view(session, await sessionEdgeRouters(services), token));
  });
  router.get('/sessions/:id', full, async (ctx) => sendDetail(ctx, view(overlay.sessions.getOwn(ctx.params.id!, ctx.state.identity!.id), await sessionEdgeRouters(services))));
  router.delete('/sessions/:id', full, async (ctx) => {
    await overlay.sessions.delete([overlay.sessions.getOwn(ctx.params.id!, ctx.state.identity!.id).id]);
    sendEmpty(ctx);
  });
}

export function serviceSessionRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const { overlay } = services;
  const viewWith = (routersOf: SessionEdgeRouters) => (session: ServiceSession) =>
    serviceSessionView(session, {
      serviceName: overlay.services.find(session.serviceId)?.name ?? '',
      policyName: (id) => overlay.policies.find(id)?.name ?? '',
      edgeRouters: routersOf(session),
    });
  router.get('/sessions', admin, async (ctx) => sendList(ctx, overlay.sessions.list(), serviceSessionCatalogue, viewWith(await sessionEdgeRouters(services))));
  // The API session representation links here (`_links.sessions`).
  router.get('/api-sessions/:id/sessions', admin, async (ctx) => {
    const apiSession = services.sessions.get(ctx.params.id!);
    if (!apiSession || services.sessions.isExpired(apiSession)) throw EdgeError.notFound('api session', ctx.params.id!);
    sendList(ctx, overlay.sessions.forApiSession(apiSession.id), serviceSessionCatalogue, viewWith(await sessionEdgeRouters(services)));
  });
  router.get('/sessions/:id', admin, async (ctx) => sendDetail(ctx, viewWith(await sessionEdgeRouters(services))(overlay.sessions.get(ctx.params.id!))));
  router.delete('/sessions/:id', admin, async (ctx) => {
    await overlay.sessions.delete([overlay.sessions.get(ctx.params.id!).id]);
    sendEmpty(ctx);
  });
}
