// How external JWT signer commands apply: a signer an auth policy names cannot be deleted.
import type { ApplyTransaction } from '../store/model-store.ts';
import { policyUsesSigner } from './auth-policy-commands.ts';
import type { ModelCommand } from './commands.ts';
import type { AuthPolicy, ExternalJwtSigner } from './entities.ts';
import { tables } from './entities.ts';
import { refuse, requireRow, unknownCommand } from './require-row.ts';

export type ExtJwtSignerCommand = Extract<ModelCommand, { type: `extJwtSigner.${string}` }>;

export function applyExtJwtSignerCommand(command: ExtJwtSignerCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'extJwtSigner.create': {
      tx.put<ExternalJwtSigner>(tables.externalJwtSigners, command.signer);
      return { id: command.signer.id };
    }
    case 'extJwtSigner.update': {
      const current = requireRow<ExternalJwtSigner>(tx, tables.externalJwtSigners, command.id, 'external jwt signer');
      tx.put<ExternalJwtSigner>(tables.externalJwtSigners, { ...command.signer, id: command.id, createdAt: current.createdAt, updatedAt: command.at });
      return undefined;
    }
    case 'extJwtSigner.delete': {
      requireRow<ExternalJwtSigner>(tx, tables.externalJwtSigners, command.id, 'external jwt signer');
      const user = tx.table<AuthPolicy>(tables.authPolicies).all().find((policy) => policyUsesSigner(policy, command.id));
      if (user) refuse('CAN_NOT_DELETE_REFERENCED_ENTITY', 'authPolicy', `the signer is referenced by auth policy ${user.id}`, user.id);
      tx.delete(tables.externalJwtSigners, command.id);
      return undefined;
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}
