// The version 1 presence answer (`routers.connected`: a controller's whole router, terminator, link and edge-session
// lists), read back keeping only well-formed entries. Version 2 (presence-protocol.ts) reuses the readers for the
// parts of one router's entry. Pure.
import type { RouterLinkReport } from '../circuits/circuit-paths.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { readLinkReport, type RouterSummary } from './router-hub.ts';
import { readDialerGroups } from './link-reach.ts';

/** A peer's answer, keeping only well-formed entries. */
export function summariesIn(answer: unknown): RouterSummary[] {
  const routers = (answer as { routers?: unknown } | null)?.routers;
  if (!Array.isArray(routers)) return [];
  return routers.filter(
    (item): item is RouterSummary =>
      typeof item === 'object' && item !== null && typeof item.routerId === 'string' && typeof item.controllerId === 'string' && Array.isArray(item.linkListeners),
  ).map((item) => ({
    routerId: item.routerId,
    controllerId: item.controllerId,
    version: typeof item.version === 'string' ? item.version : '',
    hostname: typeof item.hostname === 'string' ? item.hostname : '',
    supportedProtocols: typeof item.supportedProtocols === 'object' && item.supportedProtocols !== null ? item.supportedProtocols : {},
    connectedAt: typeof item.connectedAt === 'string' ? item.connectedAt : '',
    name: typeof item.name === 'string' ? item.name : item.routerId,
    linkListeners: item.linkListeners,
    ...(dialerGroupsOf(item) ?? {}),
  }));
}

/** The groups a peer says its router dials, when well formed (an older peer says none: any listener). */
function dialerGroupsOf(item: RouterSummary): { linkDialerGroups: string[] } | undefined {
  if (item.linkDialerGroups === undefined) return undefined;
  const read = readDialerGroups(item.linkDialerGroups);
  return read.ok ? { linkDialerGroups: read.groups } : undefined;
}

/** A peer's routers' links, keeping only well-formed reports. */
export function linkReportsIn(answer: unknown): RouterLinkReport[] {
  const reports = (answer as { links?: unknown } | null)?.links;
  if (!Array.isArray(reports)) return [];
  const result: RouterLinkReport[] = [];
  for (const item of reports) {
    const routerId = (item as { routerId?: unknown } | null)?.routerId;
    const links = readLinkReport((item as { links?: unknown } | null)?.links);
    if (typeof routerId === 'string' && links !== undefined) result.push({ routerId, links });
  }
  return result;
}

/** A peer's terminators, keeping only well-formed entries (a controller from before terminators sends none). */
export function terminatorsIn(answer: unknown): TerminatorRecord[] {
  const terminators = (answer as { terminators?: unknown } | null)?.terminators;
  if (!Array.isArray(terminators)) return [];
  const text = (value: unknown) => typeof value === 'string';
  return terminators
    .filter(
      (item): item is TerminatorRecord =>
        typeof item === 'object' &&
        item !== null &&
        ['id', 'serviceId', 'routerId', 'binding', 'address', 'identity', 'createdAt', 'updatedAt', 'controllerId'].every((key) => text(item[key])) &&
        typeof item.cost === 'number' &&
        ['default', 'required', 'failed'].includes(item.precedence),
    )
    .map((item) => ({
      id: item.id,
      serviceId: item.serviceId,
      routerId: item.routerId,
      binding: item.binding,
      address: item.address,
      identity: item.identity,
      cost: item.cost,
      precedence: item.precedence,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      controllerId: item.controllerId,
    }));
}
