// The edge router policy and service edge router policy representations. The *RolesDisplay lists show `@id` roles
// by the entity's name (`@<name>`), as the real controller does; an id whose entity is gone is shown as written.
import type { ShownEdgeRouterPolicy } from '../../edge/edge-router-access.ts';
import type { ServiceEdgeRouterPolicy } from '../../model/edge-router-policy-entities.ts';
import type { EdgeRouter } from '../../model/router-entities.ts';
import type { RouterConnection } from '../../edge/router-presence.ts';
import { syncStatusOf } from './edge-router-view.ts';
import { link } from './links.ts';

/** Looks up the name of the entity an `@id` role names, per role list. */
export interface PolicyRoleNames {
  identity(id: string): string | undefined;
  service(id: string): string | undefined;
  edgeRouter(id: string): string | undefined;
}

export function edgeRouterPolicyView(policy: ShownEdgeRouterPolicy, names: PolicyRoleNames) {
  return {
    id: policy.id,
    createdAt: policy.createdAt,
    updatedAt: policy.updatedAt,
    tags: policy.tags,
    _links: {
      self: link(`./edge-router-policies/${policy.id}`),
      'edge-routers': link(`./edge-router-policies/${policy.id}/edge-routers`),
      identities: link(`./edge-router-policies/${policy.id}/identities`),
    },
    name: policy.name,
    semantic: policy.semantic,
    isSystem: policy.isSystem,
    identityRoles: policy.identityRoles,
    identityRolesDisplay: display(policy.identityRoles, (id) => names.identity(id) ?? names.edgeRouter(id)),
    edgeRouterRoles: policy.edgeRouterRoles,
    edgeRouterRolesDisplay: display(policy.edgeRouterRoles, (id) => names.edgeRouter(id)),
  };
}

export function serviceEdgeRouterPolicyView(policy: ServiceEdgeRouterPolicy, names: PolicyRoleNames) {
  return {
    id: policy.id,
    createdAt: policy.createdAt,
    updatedAt: policy.updatedAt,
    tags: policy.tags,
    _links: {
      self: link(`./service-edge-router-policies/${policy.id}`),
      'edge-routers': link(`./service-edge-router-policies/${policy.id}/edge-routers`),
      services: link(`./service-edge-router-policies/${policy.id}/services`),
    },
    name: policy.name,
    semantic: policy.semantic,
    serviceRoles: policy.serviceRoles,
    serviceRolesDisplay: display(policy.serviceRoles, (id) => names.service(id)),
    edgeRouterRoles: policy.edgeRouterRoles,
    edgeRouterRolesDisplay: display(policy.edgeRouterRoles, (id) => names.edgeRouter(id)),
  };
}

/** A router as the Client API shows it to a client that may use it (currentIdentityEdgeRouterDetail). */
export function clientEdgeRouterView(router: EdgeRouter, connection: RouterConnection | undefined) {
  return {
    id: router.id,
    createdAt: router.createdAt,
    updatedAt: router.updatedAt,
    tags: router.tags,
    _links: { self: link(`./edge-routers/${router.id}`) },
    name: router.name,
    hostname: connection?.hostname ?? '',
    supportedProtocols: connection?.supportedProtocols ?? {},
    syncStatus: syncStatusOf(router, connection),
    isOnline: connection !== undefined,
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
    appData: router.appData,
  };
}

/** A router a session may connect through (sessionEdgeRouter): its edge listeners' addresses by protocol as `urls`. */
export function sessionEdgeRouterView(router: EdgeRouter, connection: RouterConnection) {
  return {
    name: router.name,
    hostname: connection.hostname,
    supportedProtocols: connection.supportedProtocols,
    urls: connection.supportedProtocols,
    syncStatus: syncStatusOf(router, connection),
    isOnline: true,
    cost: router.cost,
    noTraversal: router.noTraversal,
    disabled: router.disabled,
    appData: router.appData,
  };
}

function display(roles: readonly string[], nameOf: (id: string) => string | undefined) {
  return roles.map((role) => {
    const name = role.startsWith('@') ? nameOf(role.slice(1)) : undefined;
    return { role, name: name === undefined ? role : `@${name}` };
  });
}
