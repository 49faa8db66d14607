// Locking an identity out: disabled until a time (or until an admin enables it), its API sessions ended. Shared by
// password and MFA failures so both lock the same way.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { ApiSession, Identity } from './entities.ts';
import { endApiSession } from './end-api-session.ts';
import { tables } from './entities.ts';

/** The default admin is never locked for good: nobody could unlock it. It is locked this long instead. */
export const defaultAdminLockoutMinutes = 15;

export function lockIdentity(tx: ApplyTransaction, identityId: string, at: string, requestedMinutes: number): void {
  const identity = tx.table<Identity>(tables.identities).get(identityId);
  if (!identity) return;
  const lockoutMinutes = identity.isDefaultAdmin && requestedMinutes <= 0 ? defaultAdminLockoutMinutes : requestedMinutes;
  const until = lockoutMinutes > 0 ? new Date(Date.parse(at) + lockoutMinutes * 60_000).toISOString() : null;
  tx.put<Identity>(tables.identities, { ...identity, disabledAt: at, disabledUntil: until, updatedAt: at });
  for (const session of tx.table<ApiSession>(tables.apiSessions).findMany('identityId', identityId)) endApiSession(tx, session.id);
}
