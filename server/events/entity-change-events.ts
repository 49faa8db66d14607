// Entity change events: one JSON object per change, carrying the raft index of the command that made it, both as
// `raftIndex` (as the monitoring docs say) and `metadata.raft_index` (as the real controller writes it).
import { randomUUID } from 'node:crypto';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import type { Row } from '../store/entity-table.ts';

/** Secrets never leave the model, not even hashed or encrypted: credentials, tokens, key material. */
const secretFields = new Set(['password', 'tokenHash', 'token', 'jwt', 'secret', 'recoveryCodes', 'recoveryCodeHashes', 'enrollmentToken', 'enrollmentJwt']);

function redact(row: Row | undefined): Record<string, unknown> | null {
  if (!row) return null;
  const copy: Record<string, unknown> = {};
  // for…in over a plain row (own, enumerable fields only) without building an entries array per row.
  for (const key in row) if (!secretFields.has(key)) copy[key] = (row as unknown as Record<string, unknown>)[key];
  return copy;
}

export interface EntityChangeEventContext {
  readonly controllerId: string;
  readonly version: string;
  readonly now: () => number;
}

export function entityChangeEvents(applied: AppliedChanges, context: EntityChangeEventContext): Record<string, unknown>[] {
  if (applied.changes.length === 0) return [];
  const eventId = randomUUID();
  const timestamp = new Date(context.now()).toISOString();
  return applied.changes.map((change) => ({
    namespace: 'entityChange',
    event_src_id: context.controllerId,
    timestamp,
    eventId,
    eventType: change.eventType,
    entityType: change.entityType,
    raftIndex: applied.index,
    metadata: { raft_index: applied.index, version: context.version, command: applied.command.type },
    initialState: redact(change.initialState),
    finalState: redact(change.finalState),
  }));
}
