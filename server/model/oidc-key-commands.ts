// How signing-key commands apply. Publishing a controller's new key retires its earlier ones in the same entry
// (they still verify until pruned) and keeps at most maxKeysPerController of them, oldest retired first. Pruning
// removes keys retired at or before `before` (the leader picks it: retirement plus the longest token lifetime).
import type { ApplyTransaction } from '../store/model-store.ts';
import { unknownCommand } from './require-row.ts';
import { maxKeysPerController, oidcKeyTables, type OidcSigningKey } from './oidc-key-entities.ts';

export type OidcKeyCommand =
  | { type: 'oidcKey.publish'; key: OidcSigningKey }
  | { type: 'oidcKey.prune'; before: string; limit: number };

const oidcKeyCommandTypes = new Set<string>(['oidcKey.publish', 'oidcKey.prune']);

export function isOidcKeyCommand(command: { type: string }): command is OidcKeyCommand {
  return oidcKeyCommandTypes.has(command.type);
}

export function applyOidcKeyCommand(command: OidcKeyCommand, tx: ApplyTransaction): unknown {
  const table = tx.table<OidcSigningKey>(oidcKeyTables.signingKeys);
  switch (command.type) {
    case 'oidcKey.publish': {
      const { key } = command;
      const earlier = table.findMany('controllerId', key.controllerId).filter((row) => row.id !== key.id);
      for (const row of earlier) if (row.retiredAt === null) tx.put<OidcSigningKey>(oidcKeyTables.signingKeys, { ...row, retiredAt: key.createdAt, updatedAt: key.createdAt });
      tx.put<OidcSigningKey>(oidcKeyTables.signingKeys, { ...key, retiredAt: null });
      const kept = tx
        .table<OidcSigningKey>(oidcKeyTables.signingKeys)
        .findMany('controllerId', key.controllerId)
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
      for (const row of kept.slice(0, Math.max(0, kept.length - maxKeysPerController))) tx.delete(oidcKeyTables.signingKeys, row.id);
      return { id: key.id };
    }
    case 'oidcKey.prune': {
      const expired = table
        .all()
        .filter((row) => row.retiredAt !== null && row.retiredAt <= command.before)
        .slice(0, Math.max(0, command.limit));
      for (const row of expired) tx.delete(oidcKeyTables.signingKeys, row.id);
      return { pruned: expired.length };
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}
