// The services of the overlay network and who may use them: services, their configs, service policies, posture
// checks, the access they add up to, and the sessions clients open. Built together because each leans on the others.
import type { Clock } from '../../common/time/clock.ts';
import type { ModelStore } from '../store/model-store.ts';
import { ConfigService } from './config-service.ts';
import { EdgeRouterPolicyService } from './edge-router-policy-service.ts';
import { IdentityServiceConfigService } from './identity-service-config-service.ts';
import type { ModelWriter } from './model-writer.ts';
import { NetworkServiceService } from './network-service-service.ts';
import { PostureCheckService } from './posture-check-service.ts';
import { PostureResponseService } from './posture-response-service.ts';
import { ServiceAccessService } from './service-access-service.ts';
import { ServicePolicyService } from './service-policy-service.ts';
import { ServiceSessionService } from './service-session-service.ts';

export interface OverlayServices {
  readonly services: NetworkServiceService;
  readonly policies: ServicePolicyService;
  readonly postureChecks: PostureCheckService;
  /** What clients report of their devices, kept on their API sessions. */
  readonly postureResponses: PostureResponseService;
  /** Config types and configs, which services carry and clients are shown. */
  readonly configs: ConfigService;
  /** Identity-specific service configs: what one identity is shown instead of a service's config of that type. */
  readonly identityConfigs: IdentityServiceConfigService;
  readonly access: ServiceAccessService;
  readonly sessions: ServiceSessionService;
  /** Edge router policies and service edge router policies: which routers identities and services may use. */
  readonly edgeRouterPolicies: EdgeRouterPolicyService;
}

export function buildOverlayServices(store: ModelStore, writer: ModelWriter, clock: Clock): OverlayServices {
  const access = new ServiceAccessService(store);
  const configs = new ConfigService(store, writer, clock);
  return {
    services: new NetworkServiceService(store, writer, clock, configs),
    policies: new ServicePolicyService(store, writer, clock),
    postureChecks: new PostureCheckService(store, writer, clock),
    postureResponses: new PostureResponseService(store, writer, access, clock),
    configs,
    identityConfigs: new IdentityServiceConfigService(store, writer, clock),
    access,
    sessions: new ServiceSessionService(store, writer, clock, access),
    edgeRouterPolicies: new EdgeRouterPolicyService(store, writer, clock),
  };
}
