// Management API: /edge-router-policies and /service-edge-router-policies (create and PUT need name and semantic;
// PUT resets the role lists it omits, PATCH changes only what it names), and the lists that relate them to
// identities, services and edge routers. Client API: the edge routers the current identity may use, and those it may
// use for one service.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ShownEdgeRouterPolicy } from '../../edge/edge-router-access.ts';
import type { EdgeRouterPolicyInput, ServiceEdgeRouterPolicyInput } from '../../edge/edge-router-policy-service.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { ServiceEdgeRouterPolicy } from '../../model/edge-router-policy-entities.ts';
import type { Identity } from '../../model/entities.ts';
import type { EdgeRouter } from '../../model/router-entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import { clientEdgeRouterView, edgeRouterPolicyView, serviceEdgeRouterPolicyView, sessionEdgeRouterView, type PolicyRoleNames } from '../views/edge-router-policy-view.ts';
import { runListQuery } from '../query/list-query.ts';
import { edgeRouterView } from '../views/edge-router-view.ts';
import { identityView } from '../views/identity-view.ts';
import { identityCatalogue } from './catalogues.ts';
import { edgeRouterCatalogue } from './edge-router-routes.ts';
import { sendCreated, sendDetail, sendEmpty, sendJson, sendList, type RouteKit } from './route-kit.ts';
import { serviceCatalogue } from './service-catalogues.ts';
import { adminServiceView } from './service-routes.ts';

const erpProperties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  semantic: { type: 'string', enum: ['AllOf', 'AnyOf'] },
  identityRoles: schemaParts.stringList,
  edgeRouterRoles: schemaParts.stringList,
  tags: schemaParts.tags,
};
const serpProperties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  semantic: { type: 'string', enum: ['AllOf', 'AnyOf'] },
  serviceRoles: schemaParts.stringList,
  edgeRouterRoles: schemaParts.stringList,
  tags: schemaParts.tags,
};

type ErpBody = { [K in keyof typeof erpProperties]?: unknown };
type SerpBody = { [K in keyof typeof serpProperties]?: unknown };

const erpFull = bodyValidator<ErpBody>({ type: 'object', required: ['name', 'semantic'], properties: erpProperties });
const erpPatch = bodyValidator<ErpBody>({ type: 'object', properties: erpProperties });
const serpFull = bodyValidator<SerpBody>({ type: 'object', required: ['name', 'semantic'], properties: serpProperties });
const serpPatch = bodyValidator<SerpBody>({ type: 'object', properties: serpProperties });

/** The body's value for `key`; absent: the current one (PATCH) or the fallback (create, PUT); null: the fallback. */
function picker<B extends Record<string, unknown>, C>(body: B, current: C | undefined) {
  return <V>(key: keyof B & keyof C, fallback: V): V => (body[key] === undefined ? (current ? (current[key] as V) : fallback) : ((body[key] ?? fallback) as V));
}

function erpInput(body: ErpBody, current?: ShownEdgeRouterPolicy): EdgeRouterPolicyInput {
  const pick = picker(body, current);
  return {
    name: pick('name', ''),
    semantic: pick('semantic', 'AllOf'),
    identityRoles: [...pick<readonly string[]>('identityRoles', [])],
    edgeRouterRoles: [...pick<readonly string[]>('edgeRouterRoles', [])],
    tags: pick('tags', {}),
  };
}

function serpInput(body: SerpBody, current?: ServiceEdgeRouterPolicy): ServiceEdgeRouterPolicyInput {
  const pick = picker(body, current);
  return {
    name: pick('name', ''),
    semantic: pick('semantic', 'AllOf'),
    serviceRoles: [...pick<readonly string[]>('serviceRoles', [])],
    edgeRouterRoles: [...pick<readonly string[]>('edgeRouterRoles', [])],
    tags: pick('tags', {}),
  };
}

const base = <T extends { id: string; createdAt: string; updatedAt: string; name: string; semantic: string; edgeRouterRoles: readonly string[] }>() => ({
  id: { type: 'string' as const, get: (row: T) => row.id },
  createdAt: { type: 'datetime' as const, get: (row: T) => row.createdAt },
  updatedAt: { type: 'datetime' as const, get: (row: T) => row.updatedAt },
  name: { type: 'string' as const, get: (row: T) => row.name },
  semantic: { type: 'string' as const, get: (row: T) => row.semantic },
  edgeRouterRoles: { type: 'string[]' as const, get: (row: T) => row.edgeRouterRoles },
});

export const edgeRouterPolicyCatalogue: FieldCatalogue<ShownEdgeRouterPolicy> = {
  ...base<ShownEdgeRouterPolicy>(),
  identityRoles: { type: 'string[]', get: (row) => row.identityRoles },
  isSystem: { type: 'boolean', get: (row) => row.isSystem },
};

export const serviceEdgeRouterPolicyCatalogue: FieldCatalogue<ServiceEdgeRouterPolicy> = {
  ...base<ServiceEdgeRouterPolicy>(),
  serviceRoles: { type: 'string[]', get: (row) => row.serviceRoles },
};

export function edgeRouterPolicyRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { overlay, identities, routers, routerPresence } = services;
  const policies = overlay.edgeRouterPolicies;
  const names: PolicyRoleNames = {
    identity: (id) => identities.find(id)?.name,
    service: (id) => overlay.services.find(id)?.name,
    edgeRouter: (id) => routers.find(id)?.name,
  };
  const erpView = (policy: ShownEdgeRouterPolicy) => edgeRouterPolicyView(policy, names);
  const serpView = (policy: ServiceEdgeRouterPolicy) => serviceEdgeRouterPolicyView(policy, names);
  const identityListView = (identity: Identity) =>
    identityView(identity, {
      authenticators: services.authenticators.forIdentity(identity.id),
      enrollments: services.enrollments.forIdentity(identity.id),
      authPolicyName: services.authPolicies.find(identity.authPolicyId)?.name ?? identity.authPolicyId,
      isMfaEnabled: services.mfa.isEnrolled(identity.id),
      hasApiSession: services.store.table('apiSessions').findMany('identityId', identity.id).length > 0,
      hasEdgeRouterConnection: services.edgeSessions.identityConnected(identity.id),
      now: services.clock.now(),
    });
  const sendRouters = async (ctx: ApiContext, rows: readonly EdgeRouter[]) => {
    const connected = await routerPresence.connected();
    sendList(ctx, rows, edgeRouterCatalogue(connected), (row) => edgeRouterView(row, connected.get(row.id)));
  };
  const sendServices = (ctx: ApiContext, rows: Parameters<ReturnType<typeof adminServiceView>>[0][]) => sendList(ctx, rows, serviceCatalogue, adminServiceView(ctx, services));
  const identityHolder = (id: string) => {
    const identity = identities.find(id);
    if (!identity) throw EdgeError.notFound('identity', id);
    return identity;
  };

  router.get('/edge-router-policies', admin, (ctx) => sendList(ctx, policies.listEdgeRouterPolicies(), edgeRouterPolicyCatalogue, erpView));
  router.post('/edge-router-policies', admin, async (ctx) => {
    const { id } = await policies.createEdgeRouterPolicy(erpInput(await kit.validBody(ctx, erpFull)));
    sendCreated(ctx, id, 'edge-router-policies');
  });
  router.get('/edge-router-policies/:id', admin, (ctx) => sendDetail(ctx, erpView(policies.getEdgeRouterPolicy(ctx.params.id!))));
  router.put('/edge-router-policies/:id', admin, async (ctx) => {
    policies.editableEdgeRouterPolicy(ctx.params.id!, 'changed');
    await policies.updateEdgeRouterPolicy(ctx.params.id!, erpInput(await kit.validBody(ctx, erpFull)));
    sendEmpty(ctx);
  });
  router.patch('/edge-router-policies/:id', admin, async (ctx) => {
    const current = policies.editableEdgeRouterPolicy(ctx.params.id!, 'changed');
    await policies.updateEdgeRouterPolicy(ctx.params.id!, erpInput(await kit.validBody(ctx, erpPatch, { optional: true }), { ...current, isSystem: false }));
    sendEmpty(ctx);
  });
  router.delete('/edge-router-policies/:id', admin, async (ctx) => {
    await policies.deleteEdgeRouterPolicy(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.get('/edge-router-policies/:id/edge-routers', admin, (ctx) => sendRouters(ctx, policies.routersOfPolicy(policies.getEdgeRouterPolicy(ctx.params.id!))));
  router.get('/edge-router-policies/:id/identities', admin, (ctx) =>
    sendList(ctx, policies.identitiesOfPolicy(policies.getEdgeRouterPolicy(ctx.params.id!)), identityCatalogue, identityListView),
  );

  router.get('/service-edge-router-policies', admin, (ctx) => sendList(ctx, policies.listServiceEdgeRouterPolicies(), serviceEdgeRouterPolicyCatalogue, serpView));
  router.post('/service-edge-router-policies', admin, async (ctx) => {
    const { id } = await policies.createServiceEdgeRouterPolicy(serpInput(await kit.validBody(ctx, serpFull)));
    sendCreated(ctx, id, 'service-edge-router-policies');
  });
  router.get('/service-edge-router-policies/:id', admin, (ctx) => sendDetail(ctx, serpView(policies.getServiceEdgeRouterPolicy(ctx.params.id!))));
  router.put('/service-edge-router-policies/:id', admin, async (ctx) => {
    policies.getServiceEdgeRouterPolicy(ctx.params.id!);
    await policies.updateServiceEdgeRouterPolicy(ctx.params.id!, serpInput(await kit.validBody(ctx, serpFull)));
    sendEmpty(ctx);
  });
  router.patch('/service-edge-router-policies/:id', admin, async (ctx) => {
    const current = policies.getServiceEdgeRouterPolicy(ctx.params.id!);
    await policies.updateServiceEdgeRouterPolicy(ctx.params.id!, serpInput(await kit.validBody(ctx, serpPatch, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/service-edge-router-policies/:id', admin, async (ctx) => {
    await policies.deleteServiceEdgeRouterPolicy(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.get('/service-edge-router-policies/:id/edge-routers', admin, (ctx) => sendRouters(ctx, policies.routersOfPolicy(policies.getServiceEdgeRouterPolicy(ctx.params.id!))));
  router.get('/service-edge-router-policies/:id/services', admin, (ctx) => sendServices(ctx, policies.servicesOfPolicy(policies.getServiceEdgeRouterPolicy(ctx.params.id!))));

  router.get('/identities/:id/edge-router-policies', admin, (ctx) =>
    sendList(ctx, policies.edgeRouterPoliciesOfIdentity(identityHolder(ctx.params.id!)), edgeRouterPolicyCatalogue, erpView),
  );
  router.get('/identities/:id/edge-routers', admin, (ctx) => {
    const granted = policies.routerIdsForIdentity(identityHolder(ctx.params.id!));
    return sendRouters(ctx, routers.list().filter((row) => granted.has(row.id)));
  });
  router.get('/services/:id/service-edge-router-policies', admin, (ctx) =>
    sendList(ctx, policies.serviceEdgeRouterPoliciesOfService(overlay.services.get(ctx.params.id!)), serviceEdgeRouterPolicyCatalogue, serpView),
  );
  router.get('/services/:id/edge-routers', admin, (ctx) => {
    const granted = policies.routerIdsForService(overlay.services.get(ctx.params.id!));
    return sendRouters(ctx, routers.list().filter((row) => granted.has(row.id)));
  });
  router.get('/edge-routers/:id/edge-router-policies', admin, (ctx) =>
    sendList(ctx, policies.edgeRouterPoliciesOfRouter(routers.get(ctx.params.id!)), edgeRouterPolicyCatalogue, erpView),
  );
  router.get('/edge-routers/:id/service-edge-router-policies', admin, (ctx) =>
    sendList(ctx, policies.serviceEdgeRouterPoliciesOfRouter(routers.get(ctx.params.id!)), serviceEdgeRouterPolicyCatalogue, serpView),
  );
  router.get('/edge-routers/:id/identities', admin, (ctx) => sendList(ctx, policies.identitiesOfRouter(routers.get(ctx.params.id!)), identityCatalogue, identityListView));
  router.get('/edge-routers/:id/services', admin, (ctx) => sendServices(ctx, policies.servicesOfRouter(routers.get(ctx.params.id!))));
}

/** Client API: the routers the current identity may connect through, and those it may use for one of its services. */
export function clientEdgeRouterRoutes(router: ApiRouter, services: EdgeServices, full: Middleware<RequestState>): void {
  const { overlay, routers, routerPresence } = services;
  const policies = overlay.edgeRouterPolicies;
  // The granted routers' rows by id, in id order: not a pass over every router (5,000 at 10x "Large").
  const sendRouters = async (ctx: ApiContext, granted: ReadonlySet<string>) => {
    const connected = await routerPresence.connected();
    const rows: EdgeRouter[] = [];
    for (const id of granted) {
      const row = routers.find(id);
      if (row) rows.push(row);
    }
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    sendList(ctx, rows, edgeRouterCatalogue(connected), (row) => clientEdgeRouterView(row, connected.get(row.id)));
  };
  router.get('/current-identity/edge-routers', full, (ctx) => sendRouters(ctx, policies.routerIdsForIdentity(ctx.state.identity!)));
  // As the real controller: `data` is `{edgeRouters: [...]}`, the online routers both kinds of policy allow, as a
  // session lists them (with `urls`); filter, sort and paging apply to the routers.
  router.get('/services/:id/edge-routers', full, async (ctx) => {
    // A service the identity may neither Dial nor Bind does not exist for it (as GET /services/{id}).
    const entry = overlay.access.accessFor(ctx.state.identity!).get(ctx.params.id!);
    if (!entry) throw EdgeError.notFound('service', ctx.params.id!);
    const forIdentity = policies.routerIdsForIdentity(ctx.state.identity!);
    const forService = policies.routerIdsForService(entry.service);
    const connected = await routerPresence.connected();
    const rows = routers.list().filter((row) => forIdentity.has(row.id) && forService.has(row.id) && !row.disabled && connected.has(row.id));
    const result = runListQuery(rows, ctx.query as Record<string, string | string[] | undefined>, edgeRouterCatalogue(connected));
    sendJson(ctx, 200, { data: { edgeRouters: result.data.map((row) => sessionEdgeRouterView(row, connected.get(row.id)!)) }, meta: result.meta });
  });
}
