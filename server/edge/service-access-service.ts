// Reads the model's services, policies and posture checks and answers, for one identity, which services it may
// use and how. The evaluation itself is pure (service-access.ts); this only gathers the rows.
import type { RoleHolder } from '../model/policy-roles.ts';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { serviceAccessFor, type ServiceAccess } from './service-access.ts';

export class ServiceAccessService {
  constructor(private readonly store: ModelStore) {}

  /** The services the identity may Dial or Bind, keyed by service id. */
  accessFor(identity: RoleHolder): Map<string, ServiceAccess> {
    return serviceAccessFor(identity, {
      services: this.store.table<Service>(serviceTables.services).all(),
      policies: this.store.table<ServicePolicy>(serviceTables.servicePolicies).all(),
      postureChecks: this.store.table<PostureCheck>(serviceTables.postureChecks).all(),
    });
  }

  /** Whether any posture check exists: with none, the real controller reports placeholder posture queries. */
  anyPostureChecks(): boolean {
    return this.store.table<PostureCheck>(serviceTables.postureChecks).size > 0;
  }
}
