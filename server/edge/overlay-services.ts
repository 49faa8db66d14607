// The services of the overlay network and who may use them: services, service policies, posture checks, the
// access they add up to, and the sessions clients open. Built together because each leans on the others.
import type { Clock } from '../../common/time/clock.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { ModelWriter } from './model-writer.ts';
import { NetworkServiceService } from './network-service-service.ts';
import { PostureCheckService } from './posture-check-service.ts';
import { ServiceAccessService } from './service-access-service.ts';
import { ServicePolicyService } from './service-policy-service.ts';
import { ServiceSessionService } from './service-session-service.ts';

export interface OverlayServices {
  readonly services: NetworkServiceService;
  readonly policies: ServicePolicyService;
  readonly postureChecks: PostureCheckService;
  readonly access: ServiceAccessService;
  readonly sessions: ServiceSessionService;
}

export function buildOverlayServices(store: ModelStore, writer: ModelWriter, clock: Clock): OverlayServices {
  const access = new ServiceAccessService(store);
  return {
    services: new NetworkServiceService(store, writer, clock),
    policies: new ServicePolicyService(store, writer, clock),
    postureChecks: new PostureCheckService(store, writer, clock),
    access,
    sessions: new ServiceSessionService(store, writer, clock, access),
  };
}
