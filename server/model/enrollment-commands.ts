// How enrollment commands apply: one live enrollment per method and identity (an expired one gives way), none while
// the identity has the authenticator it would create, and a token redeemed once, checked again in log order so two
// controllers redeeming one token at once cannot both succeed.
import { isJtiRevoked, revokedTokenReason } from './revocation-commands.ts';
import type { ApplyTransaction } from '../store/model-store.ts';
import { CommandRefused } from './command-refused.ts';
import type { ModelCommand } from './commands.ts';
import type { Authenticator, Enrollment, Identity } from './entities.ts';
import { tables } from './entities.ts';
import { refuse, requireRow, unknownCommand } from './require-row.ts';

export type EnrollmentCommand = Extract<ModelCommand, { type: `enrollment.${string}` }>;

export function applyEnrollmentCommand(command: EnrollmentCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'enrollment.create':
      return createEnrollment(command.enrollment, tx);
    case 'enrollment.delete': {
      requireRow<Enrollment>(tx, tables.enrollments, command.id, 'enrollment');
      tx.delete(tables.enrollments, command.id);
      return undefined;
    }
    case 'enrollment.complete':
      return completeEnrollment(command, tx);
    case 'enrollment.refresh': {
      const enrollment = requireRow<Enrollment>(tx, tables.enrollments, command.id, 'enrollment');
      tx.put<Enrollment>(tables.enrollments, { ...enrollment, token: command.token, jwt: command.jwt, expiresAt: command.expiresAt, updatedAt: command.at });
      return { id: enrollment.id };
    }
    default:
      return unknownCommand((command as { type: string }).type);
  }
}

function createEnrollment(enrollment: Enrollment, tx: ApplyTransaction): { id: string } {
  requireRow<Identity>(tx, tables.identities, enrollment.identityId, 'identity', 'identityId');
  const sameMethod = tx.table<Enrollment>(tables.enrollments).findMany('identityId', enrollment.identityId).filter((other) => other.method === enrollment.method);
  // An expired enrollment gives way to a new one; a live one must be deleted first.
  const live = sameMethod.filter((other) => Date.parse(other.expiresAt) > Date.parse(enrollment.createdAt));
  if (live.length > 0) {
    throw new CommandRefused({ code: 'ENROLLMENT_EXISTS', cause: { field: 'method', reason: `identity already has an enrollment of method ${enrollment.method}`, value: enrollment.method } });
  }
  const authenticatorMethod = enrollment.method === 'ott' ? 'cert' : 'updb';
  if (tx.table<Authenticator>(tables.authenticators).findMany('identityId', enrollment.identityId).some((other) => other.method === authenticatorMethod)) {
    refuse('COULD_NOT_VALIDATE', 'method', `identity already has a ${authenticatorMethod} authenticator: delete it before enrolling again`, enrollment.method);
  }
  for (const expired of sameMethod) tx.delete(tables.enrollments, expired.id);
  tx.put<Enrollment>(tables.enrollments, enrollment);
  return { id: enrollment.id };
}

function completeEnrollment(command: Extract<EnrollmentCommand, { type: 'enrollment.complete' }>, tx: ApplyTransaction): { identityId: string; authenticatorId: string } {
  const enrollment = tx.table<Enrollment>(tables.enrollments).get(command.id);
  if (!enrollment || enrollment.token !== command.token) {
    throw new CommandRefused({ code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: 'the enrollment token is unknown or already used' } });
  }
  if (Date.parse(enrollment.expiresAt) <= Date.parse(command.at)) {
    throw new CommandRefused({ code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: 'the enrollment token expired' } });
  }
  if (isJtiRevoked(tx, command.token, command.at)) throw new CommandRefused({ code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: revokedTokenReason } });
  requireRow<Identity>(tx, tables.identities, enrollment.identityId, 'identity', 'identityId');
  const existing = tx.table<Authenticator>(tables.authenticators).findMany('identityId', enrollment.identityId);
  if (existing.some((other) => other.method === command.authenticator.method)) {
    refuse('COULD_NOT_VALIDATE', 'method', `identity already has an authenticator of method ${command.authenticator.method}`, command.authenticator.method);
  }
  tx.delete(tables.enrollments, enrollment.id);
  tx.put<Authenticator>(tables.authenticators, command.authenticator);
  return { identityId: enrollment.identityId, authenticatorId: command.authenticator.id };
}
