// How TOTP enrollment commands apply. Every code is checked again here, in log order, so a TOTP step accepted on one
// controller cannot be replayed on another and a recovery code works once across the cluster.
import type { ApplyTransaction } from '../store/model-store.ts';
import type { ModelCommand, MfaProof } from './commands.ts';
import type { ApiSession, Mfa } from './entities.ts';
import { tables } from './entities.ts';
import { lockIdentity } from './identity-lock.ts';
import { CommandRefused } from './command-refused.ts';

export type MfaCommand = Extract<ModelCommand, { type: `mfa.${string}` }>;

export function isMfaCommand(command: { type: string }): command is MfaCommand {
  return command.type.startsWith('mfa.');
}

const invalidToken = (reason: string) => new CommandRefused({ code: 'MFA_INVALID_TOKEN', cause: { field: 'code', reason } });

function mfaOf(tx: ApplyTransaction, identityId: string): Mfa {
  const mfa = tx.table<Mfa>(tables.mfas).findUnique('identityId', identityId);
  if (!mfa) throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `mfa for identity ${identityId} not found` } });
  return mfa;
}

/** Uses up a proof: a TOTP step newer than any accepted, or an unused recovery code. Returns the updated row. */
function consume(mfa: Mfa, proof: MfaProof): Mfa {
  if ('totpStep' in proof) {
    if (proof.totpStep <= mfa.lastAcceptedStep) throw invalidToken('this code was already used');
    return { ...mfa, lastAcceptedStep: proof.totpStep, failedAttempts: 0 };
  }
  if (!mfa.recoveryCodeHashes.includes(proof.recoveryHash)) throw invalidToken('the recovery code is not valid or was already used');
  return { ...mfa, recoveryCodeHashes: mfa.recoveryCodeHashes.filter((hash) => hash !== proof.recoveryHash), failedAttempts: 0 };
}

/** The session answered its MFA challenge: its MFA query is satisfied and it counts as MFA-complete from `at`. */
function completeSession(tx: ApplyTransaction, apiSessionId: string | undefined, identityId: string, at: string): void {
  if (!apiSessionId) return;
  const session = tx.table<ApiSession>(tables.apiSessions).get(apiSessionId);
  if (!session || session.identityId !== identityId) return;
  tx.put<ApiSession>(tables.apiSessions, { ...session, isMfaComplete: true, mfaCompletedAt: at, authQueries: session.authQueries.filter((query) => query.typeId !== 'MFA') });
}

export function applyMfaCommand(command: MfaCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'mfa.create': {
      if (tx.table<Mfa>(tables.mfas).findUnique('identityId', command.mfa.identityId)) {
        throw new CommandRefused({ code: 'MFA_EXISTS', cause: { code: 'MFA_EXISTS', message: 'an MFA enrollment already exists for this identity' } });
      }
      if (!tx.table(tables.identities).get(command.mfa.identityId)) {
        throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `identity ${command.mfa.identityId} not found` } });
      }
      tx.put<Mfa>(tables.mfas, command.mfa);
      return { id: command.mfa.id };
    }
    case 'mfa.verify': {
      const mfa = mfaOf(tx, command.identityId);
      if (mfa.isVerified) throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: 'the MFA enrollment is already verified' } });
      tx.put<Mfa>(tables.mfas, { ...consume(mfa, { totpStep: command.step }), isVerified: true, updatedAt: command.at });
      completeSession(tx, command.apiSessionId, command.identityId, command.at);
      return undefined;
    }
    case 'mfa.delete': {
      const mfa = mfaOf(tx, command.identityId);
      if (command.proof) consume(mfa, command.proof);
      tx.delete(tables.mfas, mfa.id);
      return undefined;
    }
    case 'mfa.authenticate': {
      const mfa = mfaOf(tx, command.identityId);
      if (!mfa.isVerified) throw new CommandRefused({ code: 'MFA_NOT_ENROLLED', cause: { code: 'MFA_NOT_ENROLLED', message: 'the MFA enrollment is not verified yet' } });
      tx.put<Mfa>(tables.mfas, { ...consume(mfa, command.proof), updatedAt: command.at });
      completeSession(tx, command.apiSessionId, command.identityId, command.at);
      return undefined;
    }
    case 'mfa.replaceRecoveryCodes': {
      const mfa = mfaOf(tx, command.identityId);
      tx.put<Mfa>(tables.mfas, { ...consume(mfa, command.proof), recoveryCodes: command.recoveryCodes, recoveryCodeHashes: command.recoveryCodeHashes, updatedAt: command.at });
      return undefined;
    }
    case 'mfa.failed': {
      const mfa = tx.table<Mfa>(tables.mfas).findUnique('identityId', command.identityId);
      if (!mfa) return { locked: false };
      const failedAttempts = mfa.failedAttempts + 1;
      if (command.maxAttempts <= 0 || failedAttempts < command.maxAttempts) {
        tx.put<Mfa>(tables.mfas, { ...mfa, failedAttempts });
        return { locked: false, failedAttempts };
      }
      tx.put<Mfa>(tables.mfas, { ...mfa, failedAttempts: 0 });
      lockIdentity(tx, command.identityId, command.at, command.lockoutMinutes);
      return { locked: true, failedAttempts };
    }
  }
}
