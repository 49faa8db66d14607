// How revocation commands apply, with their effect in the same entry: an API_SESSION revocation ends that API
// session, an IDENTITY revocation ends every API session the identity has at that point of the log (every one was
// created before the revocation), and a JTI revocation is checked when an enrollment token is redeemed
// (isJtiRevoked). Ending an API session goes through endApiSession, so its service sessions end with it and the
// routers close its live circuits as for a logout. Pruning removes rows whose expiresAt has passed, a bounded
// number per entry.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { ApiSession, Identity } from './entities.ts';
import { tables } from './entities.ts';
import { endApiSession } from './end-api-session.ts';
import { requireRow, unknownCommand } from './require-row.ts';
import { revocationTables, type Revocation } from './revocation-entities.ts';

export type RevocationCommand =
  /** Revokes `revocation.id`; a second revocation of the same id replaces the first (its effect applies again). */
  | { type: 'revocation.create'; revocation: Revocation }
  /** Revokes superseded OIDC refresh tokens by their jti, many per entry; ids already revoked are left as they are. */
  | { type: 'revocation.createJtis'; revocations: Revocation[] }
  /** Deletes at most `limit` revocations whose expiresAt is at or before `before`. */
  | { type: 'revocation.prune'; before: string; limit: number };

const revocationCommandTypes = new Set<string>(['revocation.create', 'revocation.createJtis', 'revocation.prune']);

export function isRevocationCommand(command: { type: string }): command is RevocationCommand {
  return revocationCommandTypes.has(command.type);
}

export function applyRevocationCommand(command: RevocationCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'revocation.create': {
      const { revocation } = command;
      const current = tx.table<Revocation>(revocationTables.revocations).get(revocation.id);
      if (revocation.type === 'IDENTITY') requireRow<Identity>(tx, tables.identities, revocation.id, 'identity');
      tx.put<Revocation>(revocationTables.revocations, current ? { ...revocation, createdAt: current.createdAt } : revocation);
      let ended = 0;
      if (revocation.type === 'API_SESSION' && endApiSession(tx, revocation.id)) ended++;
      if (revocation.type === 'IDENTITY') {
        for (const session of tx.table<ApiSession>(tables.apiSessions).findMany('identityId', revocation.id)) if (endApiSession(tx, session.id)) ended++;
      }
      return { id: revocation.id, endedApiSessions: ended };
    }
    case 'revocation.createJtis': {
      const table = tx.table<Revocation>(revocationTables.revocations);
      let created = 0;
      for (const revocation of command.revocations) {
        if (revocation.type !== 'JTI' || table.get(revocation.id)) continue;
        tx.put<Revocation>(revocationTables.revocations, revocation, { silent: true });
        created++;
      }
      return { created };
    }
    case 'revocation.prune': {
      const expired = tx
        .table<Revocation>(revocationTables.revocations)
        .all()
        .filter((row) => row.expiresAt <= command.before)
        .slice(0, Math.max(0, command.limit));
      for (const row of expired) tx.delete(revocationTables.revocations, row.id);
      return { pruned: expired.length };
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}

/** Why a redeemed enrollment token is refused when its JWT was revoked. */
export const revokedTokenReason = 'the enrollment JWT was revoked';

/** True when a JTI revocation names this token id and has not expired at `at` (an ISO time in the command). */
export function isJtiRevoked(tx: Pick<ApplyTransaction, 'table'>, jti: string, at: string): boolean {
  const revocation = tx.table<Revocation>(revocationTables.revocations).get(jti);
  return revocation !== undefined && revocation.type === 'JTI' && revocation.expiresAt > at;
}
