// API session events (`apiSession`, also subscribed as `edge.apiSessions`): one per API session created or
// deleted (logout, expiry, an identity deleted, disabled or locked out), in the real controller's shape: namespace,
// event_src_id, timestamp, event_type, id, type, identity_id, ip_address. The real event also carries the session's
// token; it is a bearer secret, edgeward never stores it (only its hash), and so it is left out.
import type { AppliedChanges } from '../model/model-state-machine.ts';

export type ApiSessionEventType = 'created' | 'deleted';
export const apiSessionEventTypes: readonly ApiSessionEventType[] = ['created', 'deleted'];

export interface ApiSessionEventContext {
  readonly controllerId: string;
  readonly now: () => number;
}

export function apiSessionEvents(applied: AppliedChanges, context: ApiSessionEventContext): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  let timestamp: string | undefined;
  for (const change of applied.changes) {
    if (change.entityType !== 'apiSessions' || change.eventType === 'updated') continue;
    const row = (change.eventType === 'created' ? change.finalState : change.initialState) as { identityId?: string; ipAddress?: string } | undefined;
    timestamp ??= new Date(context.now()).toISOString();
    events.push({
      namespace: 'apiSession',
      event_src_id: context.controllerId,
      timestamp,
      event_type: change.eventType,
      id: change.id,
      // Sessions carried in the zt-session header; OpenZiti calls them legacy, as opposed to its OIDC JWT sessions.
      type: 'legacy',
      identity_id: row?.identityId ?? '',
      ip_address: row?.ipAddress ?? '',
      raftIndex: applied.index,
    });
  }
  return events;
}
