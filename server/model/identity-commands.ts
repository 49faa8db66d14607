// How identity commands apply: an identity with its first authenticators and enrollments, disabling (which ends its
// API sessions), enabling (which clears password lockouts), updates, and deletion with everything that hangs off it.
import type { ApplyTransaction } from '../store/model-store.ts';
import { requireAuthPolicy } from './auth-policy-commands.ts';
import { CommandRefused } from './command-refused.ts';
import type { ModelCommand } from './commands.ts';
import { endApiSession } from './end-api-session.ts';
import type { ApiSession, Authenticator, Enrollment, Identity, Mfa } from './entities.ts';
import { tables } from './entities.ts';
import { deleteIdentityServiceConfigsOf } from './identity-service-config-references.ts';
import { requireRow, unknownCommand } from './require-row.ts';

export type IdentityCommand = Extract<ModelCommand, { type: `identity.${string}` }>;

export function applyIdentityCommand(command: IdentityCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'identity.create': {
      requireAuthPolicy(tx, command.identity.authPolicyId);
      tx.put<Identity>(tables.identities, command.identity);
      for (const authenticator of command.authenticators ?? []) tx.put<Authenticator>(tables.authenticators, authenticator);
      for (const enrollment of command.enrollments ?? []) tx.put<Enrollment>(tables.enrollments, enrollment);
      return { id: command.identity.id };
    }
    case 'identity.disable': {
      const current = requireRow<Identity>(tx, tables.identities, command.id, 'identity');
      tx.put<Identity>(tables.identities, { ...current, disabledAt: command.at, disabledUntil: command.until, updatedAt: command.at });
      for (const session of tx.table<ApiSession>(tables.apiSessions).findMany('identityId', command.id)) endApiSession(tx, session.id);
      return undefined;
    }
    case 'identity.enable': {
      const current = requireRow<Identity>(tx, tables.identities, command.id, 'identity');
      tx.put<Identity>(tables.identities, { ...current, disabledAt: null, disabledUntil: null, updatedAt: command.at });
      for (const authenticator of tx.table<Authenticator>(tables.authenticators).findMany('identityId', command.id)) {
        if (authenticator.method === 'updb' && authenticator.failedAttempts) tx.put<Authenticator>(tables.authenticators, { ...authenticator, failedAttempts: 0 });
      }
      return undefined;
    }
    case 'identity.update': {
      const current = requireRow<Identity>(tx, tables.identities, command.id, 'identity');
      if (command.changes.authPolicyId !== undefined) requireAuthPolicy(tx, command.changes.authPolicyId);
      tx.put<Identity>(tables.identities, { ...current, ...command.changes, updatedAt: command.at });
      return undefined;
    }
    case 'identity.delete':
      return deleteIdentity(command, tx);
    default:
      return unknownCommand((command as { type: string }).type);
  }
}

/** Deletes the identity, its API sessions, authenticators, enrollments, MFA and service configs in one entry; never
 * the default admin unless the command allows it. */
function deleteIdentity(command: Extract<IdentityCommand, { type: 'identity.delete' }>, tx: ApplyTransaction): undefined {
  const current = requireRow<Identity>(tx, tables.identities, command.id, 'identity');
  if (current.isDefaultAdmin && !command.allowDefaultAdmin) {
    throw new CommandRefused({ code: 'ENTITY_CAN_NOT_BE_DELETED', cause: { code: 'ENTITY_CAN_NOT_BE_DELETED', message: 'the default admin identity can not be deleted' } });
  }
  for (const session of tx.table<ApiSession>(tables.apiSessions).findMany('identityId', command.id)) endApiSession(tx, session.id);
  for (const authenticator of tx.table<Authenticator>(tables.authenticators).findMany('identityId', command.id)) {
    tx.delete(tables.authenticators, authenticator.id);
  }
  for (const enrollment of tx.table<Enrollment>(tables.enrollments).findMany('identityId', command.id)) tx.delete(tables.enrollments, enrollment.id);
  const mfa = tx.table<Mfa>(tables.mfas).findUnique('identityId', command.id);
  if (mfa) tx.delete(tables.mfas, mfa.id);
  deleteIdentityServiceConfigsOf(tx, 'identityId', command.id);
  tx.delete(tables.identities, command.id);
  return undefined;
}
