// What a tproxy-mode tunnel listener intercepts: the services the router's identity may Dial (a Dial service policy
// selects both; the controller checks posture when the circuit is asked for) that carry an intercept.v1 config with
// `tcp` among its protocols. Each config's addresses are host names (answered by the nameserver with an address
// from dnsSvcIpRange), wildcard names (`*.example.com`: every name under it, each with its own address), IPv4
// addresses and IPv4 CIDRs (intercepted as they are); its port ranges are the ports intercepted. IPv6 addresses and
// UDP are left out (logged by the caller). Pure.
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import { rolesMatch } from '../../common/policy/role-match.ts';
import { ipv4ToNumber } from './address-pool.ts';

export const interceptV1TypeName = 'intercept.v1';

export interface PortRange {
  readonly low: number;
  readonly high: number;
}

export interface InterceptedService {
  readonly serviceId: string;
  readonly serviceName: string;
  /** Exact host names, lower case. */
  readonly hostnames: readonly string[];
  /** Suffixes of wildcard names: `*.example.com` → `example.com`. */
  readonly wildcards: readonly string[];
  /** IPv4 addresses and CIDRs, as written. */
  readonly ipv4: readonly string[];
  readonly ports: readonly PortRange[];
  /** Addresses not intercepted (IPv6), for the log. */
  readonly skipped: readonly string[];
}

/** The services this router intercepts, by its edge model (in service name order). */
export function interceptPlan(routerId: string, model: EdgeModel): InterceptedService[] {
  const router = model.edgeRouters?.find((row) => row.id === routerId);
  if (!router || !router.isTunnelerEnabled) return [];
  const dials = (model.servicePolicies ?? []).filter((policy) => policy.type === 'Dial' && rolesMatch(policy.identityRoles, policy.semantic, router));
  if (dials.length === 0) return [];
  const plan: InterceptedService[] = [];
  for (const service of model.services) {
    if (!dials.some((policy) => rolesMatch(policy.serviceRoles, policy.semantic, service))) continue;
    const intercepted = readIntercept(service.configs?.[interceptV1TypeName]);
    if (intercepted) plan.push({ serviceId: service.id, serviceName: service.name, ...intercepted });
  }
  return plan.sort((a, b) => (a.serviceName < b.serviceName ? -1 : a.serviceName > b.serviceName ? 1 : 0));
}

function readIntercept(data: unknown): Omit<InterceptedService, 'serviceId' | 'serviceName'> | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { protocols, addresses, portRanges } = data as { protocols?: unknown; addresses?: unknown; portRanges?: unknown };
  if (!Array.isArray(protocols) || !protocols.includes('tcp') || !Array.isArray(addresses) || !Array.isArray(portRanges)) return undefined;
  const ports = portRanges.flatMap((range): PortRange[] => {
    const { low, high } = (range ?? {}) as { low?: unknown; high?: unknown };
    return Number.isInteger(low) && Number.isInteger(high) && (low as number) >= 1 && (low as number) <= (high as number) && (high as number) <= 65535 ? [{ low: low as number, high: high as number }] : [];
  });
  if (ports.length === 0) return undefined;
  const hostnames: string[] = [];
  const wildcards: string[] = [];
  const ipv4: string[] = [];
  const skipped: string[] = [];
  for (const address of addresses) {
    if (typeof address !== 'string' || address === '') continue;
    const text = address.trim().toLowerCase();
    if (isIpv4OrCidr(text)) ipv4.push(text);
    else if (text.startsWith('*.') && isHostname(text.slice(2))) wildcards.push(text.slice(2));
    else if (isHostname(text)) hostnames.push(text);
    else skipped.push(address);
  }
  return { hostnames, wildcards, ipv4, ports, skipped };
}

function isIpv4OrCidr(text: string): boolean {
  const [address, bits, extra] = text.split('/');
  if (extra !== undefined || ipv4ToNumber(address!) === undefined) return false;
  return bits === undefined || (/^\d{1,2}$/.test(bits) && Number(bits) <= 32);
}

function isHostname(text: string): boolean {
  return text.length <= 253 && /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(text);
}
