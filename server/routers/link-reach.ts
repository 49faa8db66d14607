// Which routers a router needs to hear of: those it may form a link with. A router uses another's arrival to dial
// it (its link listeners' addresses and server fingerprint) or to accept its links (its client fingerprint), so it
// needs a router when one of the two may dial the other: a dialer and a link listener share a group
// (common/control-channel/link-groups.ts). A router whose hello did not say which groups it dials (an older one) is
// taken to dial every listener. Pure.
import type { LinkListenerInfo } from '../../common/control-channel/control-messages.ts';
import { effectiveGroups } from '../../common/control-channel/link-groups.ts';

/** What decides whom a router may link with. */
export interface LinkReach {
  /** The groups of its link listeners (empty: it listens for no links). */
  readonly listens: ReadonlySet<string>;
  /** The groups of its link dialers, or `any` when it did not say. */
  readonly dials: ReadonlySet<string> | 'any';
}

export const maxDialerGroups = 64;

export function linkReachOf(linkListeners: readonly LinkListenerInfo[], linkDialerGroups: readonly string[] | undefined): LinkReach {
  const listens = new Set<string>();
  for (const listener of linkListeners) for (const group of effectiveGroups(listener.groups)) listens.add(group);
  // A dialer written without groups is in `default` too; the router's config parser has filled that in already.
  return { listens, dials: linkDialerGroups === undefined ? 'any' : new Set(linkDialerGroups) };
}

/** Whether `a` may dial `b` or `b` may dial `a`. */
export function mayLink(a: LinkReach, b: LinkReach): boolean {
  return dialsTo(a, b) || dialsTo(b, a);
}

function dialsTo(dialer: LinkReach, listener: LinkReach): boolean {
  if (listener.listens.size === 0) return false;
  if (dialer.dials === 'any') return true;
  for (const group of dialer.dials) if (listener.listens.has(group)) return true;
  return false;
}

/** Routers with equal keys hear of the same routers: one encoded message serves them all. */
export function linkReachKey(reach: LinkReach): string {
  const dials = reach.dials === 'any' ? '*' : [...reach.dials].sort().join('\u0000');
  return `${[...reach.listens].sort().join('\u0000')}\u0001${dials}`;
}

/** A hello's `linkDialerGroups` read: a list of at most 64 strings, or why not. */
export function readDialerGroups(value: unknown): { ok: true; groups: string[] } | { ok: false; reason: string } {
  if (!Array.isArray(value) || value.length > maxDialerGroups || !value.every((group) => typeof group === 'string' && group.length > 0 && group.length <= 256)) {
    return { ok: false, reason: `linkDialerGroups must be a list of at most ${maxDialerGroups} non-empty strings` };
  }
  return { ok: true, groups: [...value] };
}
