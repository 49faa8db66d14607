// Management API: `/identities/{id}/service-configs`, the identity-specific service configs (list, assign, remove).
// The bodies are `serviceConfigsAssignList`s: `[{serviceId, configId}]`; a DELETE with no body (or an empty list)
// removes every pair of the identity, as the real controller does.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { serviceConfigPairLimit } from '../../edge/identity-service-config-service.ts';
import type { ServiceConfigPair } from '../../model/identity-service-config-commands.ts';
import type { IdentityServiceConfig } from '../../model/identity-service-config-entities.ts';
import { serviceTables, type Service } from '../../model/service-entities.ts';
import type { ApiRouter } from '../api-router.ts';
import { bodyValidator } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import { entityRef } from '../views/links.ts';
import { sendEmpty, sendList, type RouteKit } from './route-kit.ts';

const pairList = bodyValidator<ServiceConfigPair[]>({
  type: 'array',
  maxItems: serviceConfigPairLimit,
  items: {
    type: 'object',
    required: ['serviceId', 'configId'],
    properties: { serviceId: { type: 'string', minLength: 1, maxLength: 1024 }, configId: { type: 'string', minLength: 1, maxLength: 1024 } },
  },
});

const serviceConfigCatalogue: FieldCatalogue<IdentityServiceConfig> = {
  serviceId: { type: 'string', get: (row) => row.serviceId },
  configId: { type: 'string', get: (row) => row.configId },
};

export function identityServiceConfigRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { identityConfigs, configs } = services.overlay;
  const serviceName = (id: string) => services.store.table<Service>(serviceTables.services).get(id)?.name ?? '';
  const view = (row: IdentityServiceConfig) => ({
    service: entityRef('services', row.serviceId, serviceName(row.serviceId)),
    serviceId: row.serviceId,
    config: entityRef('configs', row.configId, configs.find(row.configId)?.name ?? ''),
    configId: row.configId,
  });
  /** Only the two fields the spec names are kept: nothing else reaches the raft log. */
  const pairsOf = (pairs: readonly ServiceConfigPair[]) => pairs.map(({ serviceId, configId }) => ({ serviceId, configId }));

  router.get('/identities/:id/service-configs', admin, (ctx) => sendList(ctx, identityConfigs.list(ctx.params.id!), serviceConfigCatalogue, view));
  router.post('/identities/:id/service-configs', admin, async (ctx) => {
    await identityConfigs.assign(ctx.params.id!, pairsOf(await kit.validBody(ctx, pairList)));
    sendEmpty(ctx);
  });
  router.delete('/identities/:id/service-configs', admin, async (ctx) => {
    const body = await kit.body(ctx);
    await identityConfigs.remove(ctx.params.id!, body === undefined || body === null ? [] : pairsOf(pairList(body)));
    sendEmpty(ctx);
  });
}
