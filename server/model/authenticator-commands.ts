// How authenticator commands apply: one authenticator per method and identity, username and password only on updb,
// and the failed-password count that locks an identity at its limit (identity-lock.ts).
import type { ApplyTransaction } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import type { Authenticator, Identity, UpdbAuthenticator } from './entities.ts';
import { tables } from './entities.ts';
import { lockIdentity } from './identity-lock.ts';
import { refuse, requireRow, unknownCommand } from './require-row.ts';

export type AuthenticatorCommand = Extract<ModelCommand, { type: `authenticator.${string}` }>;

export function applyAuthenticatorCommand(command: AuthenticatorCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'authenticator.create': {
      const { authenticator } = command;
      requireRow<Identity>(tx, tables.identities, authenticator.identityId, 'identity', 'identityId');
      const existing = tx.table<Authenticator>(tables.authenticators).findMany('identityId', authenticator.identityId);
      if (existing.some((other) => other.method === authenticator.method)) {
        refuse('COULD_NOT_VALIDATE', 'method', `identity already has an authenticator of method ${authenticator.method}`, authenticator.method);
      }
      tx.put<Authenticator>(tables.authenticators, authenticator);
      return { id: authenticator.id };
    }
    case 'authenticator.update': {
      const current = requireRow<Authenticator>(tx, tables.authenticators, command.id, 'authenticator');
      if (current.method !== 'updb' && (command.changes.username !== undefined || command.changes.password !== undefined)) {
        refuse('CAN_NOT_UPDATE_AUTHENTICATOR', 'method', 'only updb authenticators have a username and password', current.method);
      }
      tx.put<Authenticator>(tables.authenticators, { ...current, ...command.changes, updatedAt: command.at } as Authenticator);
      return undefined;
    }
    case 'authenticator.delete': {
      requireRow<Authenticator>(tx, tables.authenticators, command.id, 'authenticator');
      tx.delete(tables.authenticators, command.id);
      return undefined;
    }
    case 'authenticator.loginFailed': {
      const current = tx.table<Authenticator>(tables.authenticators).get(command.id);
      if (!current || current.method !== 'updb') return { locked: false };
      const failedAttempts = (current.failedAttempts ?? 0) + 1;
      if (command.maxAttempts <= 0 || failedAttempts < command.maxAttempts) {
        tx.put<UpdbAuthenticator>(tables.authenticators, { ...current, failedAttempts });
        return { locked: false, failedAttempts };
      }
      tx.put<UpdbAuthenticator>(tables.authenticators, { ...current, failedAttempts: 0 });
      lockIdentity(tx, current.identityId, command.at, command.lockoutMinutes);
      return { locked: true, failedAttempts };
    }
    case 'authenticator.loginSucceeded': {
      const current = tx.table<Authenticator>(tables.authenticators).get(command.id);
      if (current?.method === 'updb' && current.failedAttempts) tx.put<UpdbAuthenticator>(tables.authenticators, { ...current, failedAttempts: 0 });
      return undefined;
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}
