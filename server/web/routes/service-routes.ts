// Management API: /services. Create needs name and encryptionRequired; PUT needs name and resets what it omits;
// PATCH changes only what it names. encryptionRequired is fixed at creation. Each service is shown with the
// calling admin's own permissions and posture queries, as the real controller shows them, and with the data of its
// configs of the types the admin's session (or the `configTypes` query parameter) asks for.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { defaultTerminatorStrategy, type ServiceInput } from '../../edge/network-service-service.ts';
import { serviceView } from '../views/service-view.ts';
import type { Service } from '../../model/service-entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { ApiContext, RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { configMapFor } from './requested-config-types.ts';
import { requireSession, sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { serviceCatalogue } from './service-catalogues.ts';

const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  encryptionRequired: { type: ['boolean', 'null'] },
  configs: schemaParts.stringList,
  roleAttributes: schemaParts.stringList,
  terminatorStrategy: { type: ['string', 'null'], maxLength: 64 },
  maxIdleTimeMillis: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  tags: schemaParts.tags,
};

type ServiceBody = { [K in keyof typeof properties]?: unknown };

const createBody = bodyValidator<ServiceBody>({ type: 'object', required: ['name', 'encryptionRequired'], properties: { ...properties, encryptionRequired: { type: 'boolean' } } });
const putBody = bodyValidator<ServiceBody>({ type: 'object', required: ['name'], properties });
const patchBody = bodyValidator<ServiceBody>({ type: 'object', properties });

/** The body over `current` (PATCH) or over the defaults (create, PUT); null means the default. */
function inputOf(body: ServiceBody, current?: Service): ServiceInput {
  const pick = <K extends keyof ServiceBody & keyof Service>(key: K, fallback: Service[K]): Service[K] =>
    body[key] === undefined ? (current ? current[key] : fallback) : ((body[key] ?? fallback) as Service[K]);
  return {
    name: pick('name', ''),
    encryptionRequired: pick('encryptionRequired', false),
    configs: [...pick('configs', [])],
    roleAttributes: [...pick('roleAttributes', [])],
    terminatorStrategy: pick('terminatorStrategy', defaultTerminatorStrategy) || defaultTerminatorStrategy,
    maxIdleTimeMillis: pick('maxIdleTimeMillis', 0),
    tags: pick('tags', {}),
  };
}

export function serviceRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const overlay = services.overlay;
  const viewFor = (ctx: ApiContext) => adminServiceView(ctx, services);
  router.get('/services', admin, (ctx) => sendList(ctx, overlay.services.list(), serviceCatalogue, viewFor(ctx)));
  router.post('/services', admin, async (ctx) => {
    const { id } = await overlay.services.create(inputOf(await kit.validBody(ctx, createBody)));
    sendCreated(ctx, id, 'services');
  });
  router.get('/services/:id', admin, (ctx) => sendDetail(ctx, viewFor(ctx)(overlay.services.get(ctx.params.id!))));
  router.put('/services/:id', admin, async (ctx) => {
    overlay.services.get(ctx.params.id!);
    await overlay.services.update(ctx.params.id!, inputOf(await kit.validBody(ctx, putBody)));
    sendEmpty(ctx);
  });
  router.patch('/services/:id', admin, async (ctx) => {
    const current = overlay.services.get(ctx.params.id!);
    await overlay.services.update(ctx.params.id!, inputOf(await kit.validBody(ctx, patchBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/services/:id', admin, async (ctx) => {
    await overlay.services.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}

/** Services as the Management API shows them to the calling admin: its own permissions and posture queries, and the
 * config data of the types its session (or the `configTypes` query parameter) asks for. */
export function adminServiceView(ctx: ApiContext, services: EdgeServices) {
  const overlay = services.overlay;
  const session = requireSession(ctx);
  const access = overlay.access.accessFor(ctx.state.identity!);
  const now = services.clock.now();
  const anyPostureChecks = overlay.access.anyPostureChecks();
  const config = configMapFor(ctx, overlay.configs);
  return (service: Service) => serviceView(service, { access: access.get(service.id), posture: session, now, anyPostureChecks, isAdmin: ctx.state.identity!.isAdmin, config });
}
