// How auth policy commands apply: the signers a policy names must exist; the system `default` policy exists before
// anyone stores it (its first update stores it) and cannot be deleted; a policy in use by an identity stays.
import type { ApplyTransaction } from '../store/model-store.ts';
import { CommandRefused } from './command-refused.ts';
import type { ModelCommand } from './commands.ts';
import type { AuthPolicy, ExternalJwtSigner, Identity } from './entities.ts';
import { tables } from './entities.ts';
import { refuse, requireRow, unknownCommand } from './require-row.ts';

export type AuthPolicyCommand = Extract<ModelCommand, { type: `authPolicy.${string}` }>;

/** The system policy exists before anyone stores it; its first update stores it. */
export const defaultAuthPolicyId = 'default';

export function applyAuthPolicyCommand(command: AuthPolicyCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'authPolicy.create': {
      requireSigners(tx, command.policy);
      tx.put<AuthPolicy>(tables.authPolicies, command.policy);
      return { id: command.policy.id };
    }
    case 'authPolicy.update': {
      const current = tx.table<AuthPolicy>(tables.authPolicies).get(command.id);
      if (!current && command.id !== defaultAuthPolicyId) requireRow<AuthPolicy>(tx, tables.authPolicies, command.id, 'auth policy');
      const policy: AuthPolicy = { ...command.policy, id: command.id, createdAt: current?.createdAt ?? command.at, updatedAt: command.at };
      requireSigners(tx, policy);
      tx.put<AuthPolicy>(tables.authPolicies, policy);
      return undefined;
    }
    case 'authPolicy.delete': {
      if (command.id === defaultAuthPolicyId) {
        throw new CommandRefused({ code: 'ENTITY_CAN_NOT_BE_DELETED', cause: { code: 'ENTITY_CAN_NOT_BE_DELETED', message: 'the default auth policy can not be deleted' } });
      }
      requireRow<AuthPolicy>(tx, tables.authPolicies, command.id, 'auth policy');
      const user = tx.table<Identity>(tables.identities).findMany('authPolicyId', command.id)[0];
      if (user) refuse('CAN_NOT_DELETE_REFERENCED_ENTITY', 'authPolicyId', `the auth policy is used by identity ${user.id}`, command.id);
      tx.delete(tables.authPolicies, command.id);
      return undefined;
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}

/** An identity's policy must exist (the default one always does). */
export function requireAuthPolicy(tx: ApplyTransaction, id: string): void {
  if (id !== defaultAuthPolicyId) requireRow<AuthPolicy>(tx, tables.authPolicies, id, 'auth policy', 'authPolicyId');
}

export function policyUsesSigner(policy: AuthPolicy, signerId: string): boolean {
  return policy.primary.extJwt.allowedSigners.includes(signerId) || policy.secondary.requireExtJwtSigner === signerId;
}

function requireSigners(tx: ApplyTransaction, policy: AuthPolicy): void {
  for (const id of policy.primary.extJwt.allowedSigners) requireRow<ExternalJwtSigner>(tx, tables.externalJwtSigners, id, 'external jwt signer', 'primary.extJwt.allowedSigners');
  if (policy.secondary.requireExtJwtSigner !== null) {
    requireRow<ExternalJwtSigner>(tx, tables.externalJwtSigners, policy.secondary.requireExtJwtSigner, 'external jwt signer', 'secondary.requireExtJwtSigner');
  }
}
