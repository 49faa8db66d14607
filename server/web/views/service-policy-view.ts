// The service-policy detail representation. The *RolesDisplay lists show `@id` roles by the entity's name
// (`@<name>`), as the real controller does; an id whose entity is gone is shown as written.
import type { ServicePolicy } from '../../model/service-entities.ts';
import { link } from './links.ts';

/** Looks up the name of the entity an `@id` role names, per role list. */
export interface RoleNames {
  identity(id: string): string | undefined;
  service(id: string): string | undefined;
  postureCheck(id: string): string | undefined;
}

export function servicePolicyView(policy: ServicePolicy, names: RoleNames) {
  return {
    id: policy.id,
    createdAt: policy.createdAt,
    updatedAt: policy.updatedAt,
    tags: policy.tags,
    _links: { self: link(`./service-policies/${policy.id}`) },
    name: policy.name,
    type: policy.type,
    semantic: policy.semantic,
    identityRoles: policy.identityRoles,
    identityRolesDisplay: display(policy.identityRoles, (id) => names.identity(id)),
    serviceRoles: policy.serviceRoles,
    serviceRolesDisplay: display(policy.serviceRoles, (id) => names.service(id)),
    postureCheckRoles: policy.postureCheckRoles,
    postureCheckRolesDisplay: display(policy.postureCheckRoles, (id) => names.postureCheck(id)),
  };
}

function display(roles: readonly string[], nameOf: (id: string) => string | undefined) {
  return roles.map((role) => {
    const name = role.startsWith('@') ? nameOf(role.slice(1)) : undefined;
    return { role, name: name === undefined ? role : `@${name}` };
  });
}
