// One line of a controller's event file (JSON lines; docs/operator-guide.md, "Events"), as the status page uses it: a
// cluster event to list, or an entity change event's raft index and time (for commit lag). Anything else is
// `ignored`; a line that is not a JSON object, or lacks what its kind needs, is `malformed` and skipped. Pure.

import type { ClusterEventView } from './snapshot.ts';

export type EventLine =
  | { readonly kind: 'cluster'; readonly event: ClusterEventView }
  | { readonly kind: 'entity-change'; readonly raftIndex: number; readonly at: number }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'malformed'; readonly reason: string };

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** `fileController`: the controller whose file this is (the writer when the event does not name one). */
export function parseEventLine(line: string, fileController: string): EventLine {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return { kind: 'malformed', reason: 'not JSON' };
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { kind: 'malformed', reason: 'not an object' };
  const event = record as Record<string, unknown>;
  const at = Date.parse(String(event.timestamp ?? ''));
  if (event.namespace === 'cluster') {
    const eventType = text(event.eventType);
    if (!eventType) return { kind: 'malformed', reason: 'a cluster event without eventType' };
    if (Number.isNaN(at)) return { kind: 'malformed', reason: 'a cluster event without a timestamp' };
    return { kind: 'cluster', event: { at, controller: text(event.event_src_id) ?? fileController, eventType, detail: describe(eventType, event) } };
  }
  if (event.namespace === 'entityChange') {
    const metadata = typeof event.metadata === 'object' && event.metadata !== null ? (event.metadata as Record<string, unknown>) : {};
    const raftIndex = typeof event.raftIndex === 'number' ? event.raftIndex : metadata.raft_index;
    if (typeof raftIndex !== 'number' || !Number.isFinite(raftIndex)) return { kind: 'malformed', reason: 'an entity change event without a raft index' };
    if (Number.isNaN(at)) return { kind: 'malformed', reason: 'an entity change event without a timestamp' };
    return { kind: 'entity-change', raftIndex, at };
  }
  return { kind: 'ignored' };
}

/** The peers, leader and index an event names, in a few words. */
function describe(eventType: string, event: Record<string, unknown>): string {
  const parts: string[] = [];
  const peers = Array.isArray(event.peers) ? event.peers.filter((peer): peer is Record<string, unknown> => typeof peer === 'object' && peer !== null) : [];
  if (peers.length > 0) {
    const names = peers.map((peer) => {
      const id = text(peer.id) ?? '?';
      const addr = text(peer.addr);
      return eventType.startsWith('peer.') && addr ? `${id} (${addr})` : id;
    });
    parts.push(`${eventType === 'members.changed' ? 'members' : peers.length === 1 ? 'peer' : 'peers'} ${names.join(', ')}`);
  }
  const leader = text(event.leaderId);
  if (leader) parts.push(`leader ${leader}`);
  const index = typeof event.index === 'number' ? event.index : typeof event.raftIndex === 'number' ? event.raftIndex : undefined;
  if (index !== undefined) parts.push(`index ${index}`);
  return parts.join('; ');
}
