// Which identities, services and posture checks a service policy relates, in both directions: what the relationship
// lists of the Management API (`/identities/{id}/services`, `/service-policies/{id}/identities`, ...) answer. A policy
// relates the entities its role lists select; an identity relates to a service when one policy selects both. Pure:
// rows in, rows out, in the order given.
import { rolesMatch, type RoleHolder } from '../model/policy-roles.ts';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import type { RoleSelector } from '../store/role-selection.ts';

/** The role list with which a service policy selects identities (IdentityService.selectedBy answers it). */
export const identitySelectorOf = (policy: ServicePolicy): RoleSelector => ({ roles: policy.identityRoles, semantic: policy.semantic });

export const servicesOfPolicy = (policy: ServicePolicy, services: readonly Service[]): Service[] =>
  services.filter((service) => rolesMatch(policy.serviceRoles, policy.semantic, service));

export const postureChecksOfPolicy = (policy: ServicePolicy, checks: readonly PostureCheck[]): PostureCheck[] =>
  checks.filter((check) => rolesMatch(policy.postureCheckRoles, policy.semantic, check));

export const policiesOfIdentity = (identity: RoleHolder, policies: readonly ServicePolicy[]): ServicePolicy[] =>
  policies.filter((policy) => rolesMatch(policy.identityRoles, policy.semantic, identity));

export const policiesOfService = (service: Service, policies: readonly ServicePolicy[]): ServicePolicy[] =>
  policies.filter((policy) => rolesMatch(policy.serviceRoles, policy.semantic, service));

/** The role lists selecting the identities some policy grants Dial or Bind on the service. */
export const identitySelectorsOfService = (service: Service, policies: readonly ServicePolicy[]): RoleSelector[] =>
  policiesOfService(service, policies).map(identitySelectorOf);
