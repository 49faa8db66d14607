// Cluster events and entity change events from the controller's JSON-lines event files (docs/operator-guide.md,
// "Events"), reduced to what the evaluator reads. Anything else in a line is ignored; a line that is not the
// event it claims to be is malformed. Pure.

export interface EventPeer {
  readonly id: string;
  readonly isPreferredLeader?: boolean;
}

export interface ClusterEventRecord {
  readonly eventType: string;
  /** `timestamp` in ms since the epoch; absent when missing or not a date. */
  readonly at?: number;
  readonly peers: readonly EventPeer[];
  readonly leaderId?: string;
}

export interface EntityChangeRecord {
  readonly raftIndex: number;
  readonly at?: number;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export function parseClusterEvent(text: string): Parsed<ClusterEventRecord> {
  const fields = parseObject(text);
  if (!fields.ok) return fields;
  const event = fields.value;
  if (event.namespace !== 'cluster') return { ok: false, reason: 'not-cluster-event' };
  if (typeof event.eventType !== 'string' || event.eventType === '') return { ok: false, reason: 'no-event-type' };
  const peers: EventPeer[] = [];
  if (Array.isArray(event.peers)) {
    for (const peer of event.peers as unknown[]) {
      if (typeof peer !== 'object' || peer === null || typeof (peer as { id?: unknown }).id !== 'string') continue;
      const { id, isPreferredLeader } = peer as { id: string; isPreferredLeader?: unknown };
      peers.push(typeof isPreferredLeader === 'boolean' ? { id, isPreferredLeader } : { id });
    }
  }
  const at = timeOf(event.timestamp);
  return {
    ok: true,
    value: {
      eventType: event.eventType,
      ...(at === undefined ? {} : { at }),
      peers,
      ...(typeof event.leaderId === 'string' ? { leaderId: event.leaderId } : {}),
    },
  };
}

export function parseEntityChange(text: string): Parsed<EntityChangeRecord> {
  const fields = parseObject(text);
  if (!fields.ok) return fields;
  const event = fields.value;
  if (event.namespace !== 'entityChange') return { ok: false, reason: 'not-entity-change' };
  const metadata = typeof event.metadata === 'object' && event.metadata !== null ? (event.metadata as Record<string, unknown>) : {};
  const raftIndex = event.raftIndex ?? metadata.raft_index;
  if (typeof raftIndex !== 'number' || !Number.isSafeInteger(raftIndex) || raftIndex < 0) return { ok: false, reason: 'no-raft-index' };
  const at = timeOf(event.timestamp);
  return { ok: true, value: { raftIndex, ...(at === undefined ? {} : { at }) } };
}

function parseObject(text: string): Parsed<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not-json' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'not-object' };
  return { ok: true, value: parsed as Record<string, unknown> };
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}
