// Mounts the service, config, config-type, service-policy, posture-check, session, edge-router and terminator routes on one
// API: the Client API's are for fully authenticated sessions (a partially authenticated one gets 401), the
// Management API's for admins.
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ApiRouter } from '../api-router.ts';
import type { sessionGuard } from '../session-guard.ts';
import { clientServiceRoutes } from './client-service-routes.ts';
import { configRoutes } from './config-routes.ts';
import { clientEdgeRouterRoutes, edgeRouterPolicyRoutes } from './edge-router-policy-routes.ts';
import { clientRouterEnrollmentRoutes, edgeRouterRoutes } from './edge-router-routes.ts';
import { failedServiceRequestRoutes } from './failed-service-request-routes.ts';
import { postureCheckRoutes } from './posture-check-routes.ts';
import { clientPostureResponseRoutes, postureDataRoutes } from './posture-response-routes.ts';
import { relationshipRoutes } from './relationship-routes.ts';
import { roleAttributeRoutes } from './role-attribute-routes.ts';
import type { RouteKit } from './route-kit.ts';
import { servicePolicyRoutes } from './service-policy-routes.ts';
import { serviceRoutes } from './service-routes.ts';
import { clientServiceSessionRoutes, serviceSessionRoutes } from './service-session-routes.ts';
import { policyAdviceRoutes, summaryRoutes } from './summary-routes.ts';
import { clientTerminatorRoutes, terminatorRoutes } from './terminator-routes.ts';
import { serviceUpdateRoutes } from './service-update-routes.ts';

export function overlayRoutes(router: ApiRouter, api: 'edge-client' | 'edge-management', services: EdgeServices, kit: RouteKit, guard: ReturnType<typeof sessionGuard>): void {
  if (api === 'edge-client') {
    const full = guard('full');
    clientServiceRoutes(router, services, full);
    clientServiceSessionRoutes(router, services, kit, full);
    clientPostureResponseRoutes(router, services, kit, full);
    clientRouterEnrollmentRoutes(router, services, kit);
    clientEdgeRouterRoutes(router, services, full);
    clientTerminatorRoutes(router, services, full);
    serviceUpdateRoutes(router, services, full);
    return;
  }
  const admin = guard('admin');
  serviceRoutes(router, services, kit, admin);
  configRoutes(router, services, kit, admin);
  servicePolicyRoutes(router, services, kit, admin);
  postureCheckRoutes(router, services, kit, admin);
  postureDataRoutes(router, services, admin);
  serviceSessionRoutes(router, services, admin);
  edgeRouterRoutes(router, services, kit, admin);
  terminatorRoutes(router, services, kit, admin);
  edgeRouterPolicyRoutes(router, services, kit, admin);
  relationshipRoutes(router, services, admin);
  roleAttributeRoutes(router, services, admin);
  summaryRoutes(router, services, admin);
  failedServiceRequestRoutes(router, services, admin);
  // Edge router policies decide which routers an identity and a service may use.
  policyAdviceRoutes(router, services, admin, services.overlay.edgeRouterPolicies);
}
