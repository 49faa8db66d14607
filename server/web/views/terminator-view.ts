// The terminator detail representation, in the real controller's shape (terminatorDetail): the service and router
// as entity references beside their ids, the hosting identity, cost, precedence and dynamic cost.
import type { TerminatorRecord } from '../../edge/terminator-directory.ts';
import { entityRef, link } from './links.ts';

/** `serviceName` and `routerName`: '' when the row is gone (a terminator outlives neither for long). */
export function terminatorView(terminator: TerminatorRecord, serviceName: string, routerName: string) {
  return {
    id: terminator.id,
    createdAt: terminator.createdAt,
    updatedAt: terminator.updatedAt,
    tags: terminator.tags ?? {},
    _links: {
      self: link(`./terminators/${terminator.id}`),
      service: link(`./services/${terminator.serviceId}`),
      router: link(`./edge-routers/${terminator.routerId}`),
    },
    serviceId: terminator.serviceId,
    service: entityRef('services', terminator.serviceId, serviceName),
    routerId: terminator.routerId,
    router: entityRef('edge-routers', terminator.routerId, routerName),
    binding: terminator.binding,
    address: terminator.address,
    identity: terminator.identity,
    cost: terminator.cost,
    precedence: terminator.precedence,
    dynamicCost: terminator.cost,
  };
}

/** A terminator as the Client API shows it (terminatorClientDetail): the service, router and hosting identity only. */
export function clientTerminatorView(terminator: TerminatorRecord, serviceName: string) {
  return {
    id: terminator.id,
    createdAt: terminator.createdAt,
    updatedAt: terminator.updatedAt,
    tags: terminator.tags ?? {},
    _links: { self: link(`./terminators/${terminator.id}`), service: link(`./services/${terminator.serviceId}`) },
    serviceId: terminator.serviceId,
    service: entityRef('services', terminator.serviceId, serviceName),
    routerId: terminator.routerId,
    identity: terminator.identity,
  };
}
