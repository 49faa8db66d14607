// The session representation: a client's Dial or Bind session on one service. `token` is known only when the
// session is created (the model keeps its hash); later answers carry it empty, as the spec requires the property.
// `edgeRouters`: the online routers the policies allow (session-edge-routers.ts), given by the route.
import type { ServiceSession } from '../../model/service-entities.ts';
import { entityRef, link } from './links.ts';

export interface SessionNames {
  readonly serviceName: string;
  /** Management only: the names of the policies that let the session be created. */
  readonly policyName?: (id: string) => string;
  /** The routers the session may connect through; none when not given. */
  readonly edgeRouters?: readonly unknown[];
}

export function serviceSessionView(session: ServiceSession, names: SessionNames, token?: string) {
  return {
    id: session.id,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    tags: session.tags,
    _links: { self: link(`./sessions/${session.id}`) },
    token: token ?? '',
    type: session.type,
    apiSessionId: session.apiSessionId,
    apiSession: entityRef('api-sessions', session.apiSessionId, ''),
    identityId: session.identityId,
    serviceId: session.serviceId,
    service: entityRef('services', session.serviceId, names.serviceName),
    edgeRouters: names.edgeRouters ?? [],
    ...(names.policyName ? { servicePolicies: session.servicePolicyIds.map((id) => entityRef('service-policies', id, names.policyName!(id))) } : {}),
  };
}
