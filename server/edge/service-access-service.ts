// Reads the model's services, policies and posture checks and answers, for one identity, which services it may
// use and how. The evaluation itself is pure (service-access.ts); this gathers the rows and keeps each identity's
// answer until a command changes the services, service policies or posture checks (or the identity's attributes:
// they are part of the key), for at most `serviceAccessIdentityLimit` identities (the oldest forgotten past it). An
// SDK polls its service list (`service-updates`) and opens sessions with it: walking every policy and service per
// question took tens of milliseconds at 2,000 services and 2,500 policies.
import type { RoleHolder } from '../model/policy-roles.ts';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { holderKey, tableVersion } from './cache-keys.ts';
import { serviceAccessFor, type ServiceAccess } from './service-access.ts';

/** Identities whose service access is remembered at most. */
export const serviceAccessIdentityLimit = 1_000;

const accessTables = [serviceTables.services, serviceTables.servicePolicies, serviceTables.postureChecks];

export class ServiceAccessService {
  private remembered: { version: string; byHolder: Map<string, ReadonlyMap<string, ServiceAccess>> } | undefined;

  constructor(private readonly store: ModelStore) {}

  /** The services the identity may Dial or Bind, keyed by service id. */
  accessFor(identity: RoleHolder): ReadonlyMap<string, ServiceAccess> {
    const version = tableVersion(this.store, accessTables);
    if (this.remembered?.version !== version) this.remembered = { version, byHolder: new Map() };
    const key = holderKey(identity);
    const known = this.remembered.byHolder.get(key);
    if (known) return known;
    const access = serviceAccessFor(identity, {
      services: this.store.table<Service>(serviceTables.services).all(),
      policies: this.store.table<ServicePolicy>(serviceTables.servicePolicies).all(),
      postureChecks: this.store.table<PostureCheck>(serviceTables.postureChecks).all(),
    });
    const byHolder = this.remembered.byHolder;
    if (byHolder.size >= serviceAccessIdentityLimit) byHolder.delete(byHolder.keys().next().value!);
    byHolder.set(key, access);
    return access;
  }

  /** Whether any posture check exists: with none, the real controller reports placeholder posture queries. */
  anyPostureChecks(): boolean {
    return this.store.table<PostureCheck>(serviceTables.postureChecks).size > 0;
  }
}
