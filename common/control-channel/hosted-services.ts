// Which services a router hosts, worked out the same way on both sides of the control channel: the router from the
// edge model it is sent (to register terminators), the controller from its own model (to check every registration).
// A router's identity is the edge router itself (its id, for `@id` roles, and its role attributes), and only when it
// is tunneler-enabled, as an OpenZiti edge router has an identity only then. It hosts a service when a Bind service
// policy selects both (posture checks are not evaluated for hosting) and the service carries a `host.v1` config
// with a fixed protocol, address and port: the terminator's address is then `<protocol>:<address>:<port>`
// (`tcp:127.0.0.1:8080`). A host.v1 that forwards what the client intercepted (forwardProtocol, forwardAddress,
// forwardPort) has no single address and is not hosted yet. Pure.
import { rolesMatch, type RoleHolder } from '../policy/role-match.ts';
import type { EdgeModelPolicy } from './control-messages.ts';

/** Bounds on the terminator messages (both sides hold them to these). */
export const terminatorLimits = {
  /** Terminators (or service ids) in one create (remove) message; a router sends more in several. */
  maxPerMessage: 1000,
  /** Characters of an id or an address. */
  maxIdLength: 512,
  maxAddressLength: 1024,
} as const;

export const hostV1TypeName = 'host.v1';

export interface HostingRouter extends RoleHolder {
  readonly isTunnelerEnabled: boolean;
}

export interface HostableService extends RoleHolder {
  /** The service's host.v1 config data, when it has one. */
  readonly hostV1?: unknown;
}

/** The terminator address of a host.v1 config's data, or undefined when it has no fixed protocol, address and port. */
export function hostV1Address(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { protocol, address, port } = data as { protocol?: unknown; address?: unknown; port?: unknown };
  if (typeof protocol !== 'string' || typeof address !== 'string' || typeof port !== 'number' || !Number.isInteger(port)) return undefined;
  const host = address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
  const text = `${protocol}:${host}:${port}`;
  return text.length <= terminatorLimits.maxAddressLength ? text : undefined;
}

/** serviceId → terminator address, for every service the router may Bind that has a fixed host.v1 address. */
export function hostedServices(router: HostingRouter | undefined, services: readonly HostableService[], policies: readonly EdgeModelPolicy[]): Map<string, string> {
  const hosted = new Map<string, string>();
  if (!router || !router.isTunnelerEnabled) return hosted;
  const binds = policies.filter((policy) => policy.type === 'Bind' && rolesMatch(policy.identityRoles, policy.semantic, router));
  if (binds.length === 0) return hosted;
  for (const service of services) {
    const address = hostV1Address(service.hostV1);
    if (address === undefined) continue;
    if (binds.some((policy) => rolesMatch(policy.serviceRoles, policy.semantic, service))) hosted.set(service.id, address);
  }
  return hosted;
}
