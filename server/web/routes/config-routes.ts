// Management API: /config-types and /configs. A config type is a name and a JSON schema (host.v1 and intercept.v1
// are built in and cannot be deleted); a config is data of one type, checked against its schema, which services
// carry. Create needs name (and, for a config, configTypeId and data); PUT needs name (and data) and resets what it
// omits; PATCH changes only what it names. A config's type is fixed at creation.
import type { Middleware } from 'koa';
import type { ConfigChanges, ConfigTypeInput } from '../../edge/config-service.ts';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { configTypeView, configView } from '../views/config-view.ts';
import type { Config, ConfigType, ConfigTypeTarget } from '../../model/config-entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { configCatalogue, configTypeCatalogue, serviceCatalogue } from './service-catalogues.ts';
import { adminServiceView } from './service-routes.ts';

const name = { type: 'string', minLength: 1, maxLength: 512 };

const typeProperties = {
  name,
  schema: { type: ['object', 'null'] },
  target: { type: ['string', 'null'], enum: ['service', 'router', null] },
  tags: schemaParts.tags,
};
type TypeBody = { [K in keyof typeof typeProperties]?: unknown };

const createTypeBody = bodyValidator<TypeBody>({ type: 'object', required: ['name'], properties: typeProperties });
const patchTypeBody = bodyValidator<TypeBody>({ type: 'object', properties: typeProperties });

const configProperties = {
  name,
  configTypeId: { type: 'string', minLength: 1, maxLength: 512 },
  data: { type: 'object' },
  tags: schemaParts.tags,
};
type ConfigBody = { [K in keyof typeof configProperties]?: unknown };

const createConfigBody = bodyValidator<ConfigBody>({ type: 'object', required: ['name', 'configTypeId', 'data'], properties: configProperties });
const putConfigBody = bodyValidator<ConfigBody>({ type: 'object', required: ['name', 'data'], properties: configProperties });
const patchConfigBody = bodyValidator<ConfigBody>({ type: 'object', properties: configProperties });

/** The body over `current` (PATCH) or over the defaults (create, PUT); null means the default. */
function typeInputOf(body: TypeBody, current?: ConfigType): ConfigTypeInput {
  const pick = <K extends keyof TypeBody & keyof ConfigType>(key: K, fallback: ConfigType[K]): ConfigType[K] =>
    body[key] === undefined ? (current ? current[key] : fallback) : ((body[key] ?? fallback) as ConfigType[K]);
  return {
    name: pick('name', ''),
    schema: pick('schema', {}),
    // The real controller stores no target when none is given and reads that as `service`.
    target: pick('target', 'service' as ConfigTypeTarget),
    tags: pick('tags', {}),
  };
}

function configChangesOf(body: ConfigBody, current?: Config): ConfigChanges {
  const pick = <K extends keyof ConfigBody & keyof Config>(key: K, fallback: Config[K]): Config[K] =>
    body[key] === undefined ? (current ? current[key] : fallback) : ((body[key] ?? fallback) as Config[K]);
  return { name: pick('name', ''), data: pick('data', {}), tags: pick('tags', {}) };
}

export function configRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const configs = services.overlay.configs;
  const typeName = (config: Config) => configs.findType(config.configTypeId)?.name ?? '';
  const showConfig = (config: Config) => configView(config, typeName(config));

  router.get('/config-types', admin, (ctx) => sendList(ctx, configs.listTypes(), configTypeCatalogue, configTypeView));
  router.post('/config-types', admin, async (ctx) => {
    const { id } = await configs.createType(typeInputOf(await kit.validBody(ctx, createTypeBody)));
    sendCreated(ctx, id, 'config-types');
  });
  router.get('/config-types/:id', admin, (ctx) => sendDetail(ctx, configTypeView(configs.getType(ctx.params.id!))));
  router.put('/config-types/:id', admin, async (ctx) => {
    configs.getType(ctx.params.id!);
    await configs.updateType(ctx.params.id!, typeInputOf(await kit.validBody(ctx, createTypeBody)));
    sendEmpty(ctx);
  });
  router.patch('/config-types/:id', admin, async (ctx) => {
    const current = configs.getType(ctx.params.id!);
    await configs.updateType(ctx.params.id!, typeInputOf(await kit.validBody(ctx, patchTypeBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/config-types/:id', admin, async (ctx) => {
    await configs.deleteType(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.get('/config-types/:id/configs', admin, (ctx) => {
    const type = configs.getType(ctx.params.id!);
    sendList(ctx, configs.ofType(type.id), configCatalogue, showConfig);
  });

  router.get('/configs', admin, (ctx) => sendList(ctx, configs.list(), configCatalogue, showConfig));
  router.post('/configs', admin, async (ctx) => {
    const body = await kit.validBody(ctx, createConfigBody);
    // The type by id, or by name for convenience (ziti's CLI takes a name); an unknown one is refused by id.
    const given = body.configTypeId as string;
    const configTypeId = configs.findType(given) ? given : (configs.resolveTypeIds([given]).find((id) => id !== 'all') ?? given);
    const { id } = await configs.create({ ...configChangesOf(body), configTypeId });
    sendCreated(ctx, id, 'configs');
  });
  router.get('/configs/:id', admin, (ctx) => sendDetail(ctx, showConfig(configs.get(ctx.params.id!))));
  router.put('/configs/:id', admin, async (ctx) => {
    configs.get(ctx.params.id!);
    await configs.update(ctx.params.id!, configChangesOf(await kit.validBody(ctx, putConfigBody)));
    sendEmpty(ctx);
  });
  router.patch('/configs/:id', admin, async (ctx) => {
    const current = configs.get(ctx.params.id!);
    await configs.update(ctx.params.id!, configChangesOf(await kit.validBody(ctx, patchConfigBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/configs/:id', admin, async (ctx) => {
    await configs.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
  router.get('/configs/:id/services', admin, (ctx) => {
    const config = configs.get(ctx.params.id!);
    sendList(ctx, configs.servicesOf(config.id), serviceCatalogue, adminServiceView(ctx, services));
  });
  router.get('/services/:id/configs', admin, (ctx) => {
    const service = services.overlay.services.get(ctx.params.id!);
    sendList(ctx, service.configs.map((id) => configs.find(id)).filter((config): config is Config => config !== undefined), configCatalogue, showConfig);
  });
}
