// Management API: the relationship lists of identities, services and service policies (`/identities/{id}/services`,
// `/services/{id}/identities`, `/service-policies/{id}/posture-checks`, ...): the entities the service policies
// relate to one entity, shown, paged, filtered and sorted as their own collection's list. The entity itself must
// exist (404 otherwise). Edge-router relations belong with the edge router policies.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import {
  identitySelectorOf,
  identitySelectorsOfService,
  policiesOfIdentity,
  policiesOfService,
  postureChecksOfPolicy,
  servicesOfPolicy,
} from '../../edge/policy-relations.ts';
import { postureCheckView } from '../views/posture-check-view.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { identityCatalogue } from './catalogues.ts';
import { adminIdentityView } from './identity-routes.ts';
import { sendList } from './route-kit.ts';
import { postureCheckCatalogue, serviceCatalogue, servicePolicyCatalogue } from './service-catalogues.ts';
import { adminServicePolicyView } from './service-policy-routes.ts';
import { adminServiceView } from './service-routes.ts';

export function relationshipRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const { overlay, identities } = services;
  const identityView = adminIdentityView(services);
  const policyView = adminServicePolicyView(services);

  router.get('/identities/:id/services', admin, (ctx) => {
    const identity = identities.get(ctx.params.id!);
    const granted = [...overlay.access.accessFor(identity).values()].map((access) => access.service);
    sendList(ctx, granted, serviceCatalogue, adminServiceView(ctx, services));
  });
  router.get('/identities/:id/service-policies', admin, (ctx) => {
    const identity = identities.get(ctx.params.id!);
    sendList(ctx, policiesOfIdentity(identity, overlay.policies.list()), servicePolicyCatalogue, policyView);
  });

  router.get('/services/:id/identities', admin, (ctx) => {
    const service = overlay.services.get(ctx.params.id!);
    sendList(ctx, identities.selectedBy(identitySelectorsOfService(service, overlay.policies.list())), identityCatalogue, identityView);
  });
  router.get('/services/:id/service-policies', admin, (ctx) => {
    const service = overlay.services.get(ctx.params.id!);
    sendList(ctx, policiesOfService(service, overlay.policies.list()), servicePolicyCatalogue, policyView);
  });

  router.get('/service-policies/:id/identities', admin, (ctx) => {
    const policy = overlay.policies.get(ctx.params.id!);
    sendList(ctx, identities.selectedBy([identitySelectorOf(policy)]), identityCatalogue, identityView);
  });
  router.get('/service-policies/:id/services', admin, (ctx) => {
    const policy = overlay.policies.get(ctx.params.id!);
    sendList(ctx, servicesOfPolicy(policy, overlay.services.list()), serviceCatalogue, adminServiceView(ctx, services));
  });
  router.get('/service-policies/:id/posture-checks', admin, (ctx) => {
    const policy = overlay.policies.get(ctx.params.id!);
    sendList(ctx, postureChecksOfPolicy(policy, overlay.postureChecks.list()), postureCheckCatalogue, postureCheckView);
  });
}
