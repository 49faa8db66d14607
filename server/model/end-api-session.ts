// Ending an API session ends the service sessions opened under it, in the same entry: a service session never
// outlives the login that created it. Every path that deletes API sessions goes through here.
import type { ApplyTransaction } from '../store/model-store.ts';
import { tables } from './entities.ts';
import type { ServiceSession } from './service-entities.ts';
import { serviceTables } from './service-entities.ts';

/** Deletes the API session and its service sessions; false when the API session was already gone. */
export function endApiSession(tx: ApplyTransaction, apiSessionId: string): boolean {
  for (const session of tx.table<ServiceSession>(serviceTables.serviceSessions).findMany('apiSessionId', apiSessionId)) tx.delete(serviceTables.serviceSessions, session.id);
  return tx.delete(tables.apiSessions, apiSessionId) !== undefined;
}
