// Management API: /service-policies. Create and PUT need name, type and semantic (PUT resets the role lists it
// omits); PATCH changes only what it names.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ServicePolicyInput } from '../../edge/service-policy-service.ts';
import { servicePolicyView, type RoleNames } from '../views/service-policy-view.ts';
import type { ServicePolicy } from '../../model/service-entities.ts';
import { bodyValidator, schemaParts } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { servicePolicyCatalogue } from './service-catalogues.ts';

const properties = {
  name: { type: 'string', minLength: 1, maxLength: 512 },
  type: { type: 'string', enum: ['Dial', 'Bind'] },
  semantic: { type: 'string', enum: ['AllOf', 'AnyOf'] },
  identityRoles: schemaParts.stringList,
  serviceRoles: schemaParts.stringList,
  postureCheckRoles: schemaParts.stringList,
  tags: schemaParts.tags,
};

type PolicyBody = { [K in keyof typeof properties]?: unknown };

const fullBody = bodyValidator<PolicyBody>({ type: 'object', required: ['name', 'type', 'semantic'], properties });
const patchBody = bodyValidator<PolicyBody>({ type: 'object', properties });

function inputOf(body: PolicyBody, current?: ServicePolicy): ServicePolicyInput {
  const pick = <K extends keyof PolicyBody & keyof ServicePolicy>(key: K, fallback: ServicePolicy[K]): ServicePolicy[K] =>
    body[key] === undefined ? (current ? current[key] : fallback) : ((body[key] ?? fallback) as ServicePolicy[K]);
  return {
    name: pick('name', ''),
    type: pick('type', 'Dial'),
    semantic: pick('semantic', 'AllOf'),
    identityRoles: [...pick('identityRoles', [])],
    serviceRoles: [...pick('serviceRoles', [])],
    postureCheckRoles: [...pick('postureCheckRoles', [])],
    tags: pick('tags', {}),
  };
}

/** Service policies as the Management API shows them, `@id` roles named (the relationship lists show them the same way). */
export function adminServicePolicyView(services: EdgeServices) {
  const { overlay, identities } = services;
  const names: RoleNames = {
    identity: (id) => identities.find(id)?.name,
    service: (id) => overlay.services.find(id)?.name,
    postureCheck: (id) => overlay.postureChecks.find(id)?.name,
  };
  return (policy: ServicePolicy) => servicePolicyView(policy, names);
}

export function servicePolicyRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { overlay } = services;
  const view = adminServicePolicyView(services);
  router.get('/service-policies', admin, (ctx) => sendList(ctx, overlay.policies.list(), servicePolicyCatalogue, view));
  router.post('/service-policies', admin, async (ctx) => {
    const { id } = await overlay.policies.create(inputOf(await kit.validBody(ctx, fullBody)));
    sendCreated(ctx, id, 'service-policies');
  });
  router.get('/service-policies/:id', admin, (ctx) => sendDetail(ctx, view(overlay.policies.get(ctx.params.id!))));
  router.put('/service-policies/:id', admin, async (ctx) => {
    overlay.policies.get(ctx.params.id!);
    await overlay.policies.update(ctx.params.id!, inputOf(await kit.validBody(ctx, fullBody)));
    sendEmpty(ctx);
  });
  router.patch('/service-policies/:id', admin, async (ctx) => {
    const current = overlay.policies.get(ctx.params.id!);
    await overlay.policies.update(ctx.params.id!, inputOf(await kit.validBody(ctx, patchBody, { optional: true }), current));
    sendEmpty(ctx);
  });
  router.delete('/service-policies/:id', admin, async (ctx) => {
    await overlay.policies.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}
