// Applies committed model commands, in log order, to the model store. Each entry is all-or-nothing: a refused
// command rolls back what it touched and reports an API error code; the batch and its raft index persist together.
// Only a storage failure escapes apply (and stops the raft node); whatever else a command's apply throws refuses it.
import { silentLogger, type Logger } from '../../common/log/logger.ts';
import type { ApplyFailure, ApplyResult, CommittedEntry, StateMachine } from '../raft/state-machine.ts';
import type { EdgeErrorCode } from '../edge/edge-error.ts';
import { CommandRefused } from './command-refused.ts';
import { endApiSession } from './end-api-session.ts';
import { lockIdentity } from './identity-lock.ts';
import { applyConfigCommand, isConfigCommand } from './config-commands.ts';
import { applyMfaCommand, isMfaCommand } from './mfa-commands.ts';
import { applyRouterCommand, isRouterCommand } from './router-commands.ts';
import { applyServiceCommand, isServiceCommand } from './service-commands.ts';
import { UniqueIndexViolation } from '../store/entity-table.ts';
import type { ApplyTransaction, EntityChange, ModelStore } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import type { ApiSession, AuthPolicy, Authenticator, Ca, Enrollment, ExternalJwtSigner, Identity, Mfa, UpdbAuthenticator } from './entities.ts';
import { tables } from './entities.ts';

export { CommandRefused } from './command-refused.ts';

/** What the proposer of a command that failed to apply is told (the API answers 400 INVALID_FIELD). */
const notApplied: ApplyFailure = { code: 'INVALID_FIELD', cause: { field: '(root)', reason: 'the request could not be applied to the model; nothing was changed' } };

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : String(error).slice(0, 500);
}

const refuse = (code: EdgeErrorCode, field: string, reason: string, value?: unknown): never => {
  throw new CommandRefused({ code, cause: value === undefined ? { field, reason } : { field, reason, value } });
};

/** Which request field a unique-index clash is reported against. */
const indexFields: Record<string, string> = { name: 'name', externalId: 'externalId', username: 'username', tokenHash: 'token', fingerprint: 'certPem', token: 'token' };

/** The system policy exists before anyone stores it; its first update stores it. */
export const defaultAuthPolicyId = 'default';

export interface AppliedChanges {
  readonly index: number;
  readonly command: ModelCommand;
  readonly changes: readonly EntityChange[];
}

export type ChangeListener = (applied: AppliedChanges) => void;

export class ModelStateMachine implements StateMachine {
  /** The whole model, for a raft snapshot. */
  snapshot(): unknown {
    return this.store.exportRows();
  }

  async restore(data: unknown, index: number): Promise<void> {
    await this.store.replaceAll(data as { tables: Record<string, never[]> }, index);
  }

  private readonly listeners: ChangeListener[] = [];

  constructor(
    readonly store: ModelStore,
    private readonly logger: Logger = silentLogger,
  ) {}

  appliedIndex(): number {
    return this.store.appliedIndex();
  }

  /** Listeners hear each entry's entity changes after the batch holding it is durable. */
  onChanges(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  async apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]> {
    const applied: AppliedChanges[] = [];
    const results = await this.store.applyBatch(
      entries,
      (entry, tx) => {
        const index = entry.index;
        const command = entry.command as ModelCommand;
        try {
          const value = applyCommand(command, tx);
          applied.push({ index, command, changes: [...tx.changes] });
          return { ok: true, value } as ApplyResult;
        } catch (error) {
          tx.rollback();
          if (error instanceof CommandRefused) return { ok: false, error: error.failure } as ApplyResult;
          if (error instanceof UniqueIndexViolation) {
            return {
              ok: false,
              error: { code: 'COULD_NOT_VALIDATE', cause: { field: indexFields[error.index] ?? error.index, reason: error.message, value: error.value } },
            } as ApplyResult;
          }
          // Anything else (a command of an unexpected shape, a bug in its apply) is refused too: it fails the same
          // way on every member, since each applies the same entry to the same state, and rethrowing it would stop
          // the raft node on all of them at once. The command is not logged: it may hold secrets.
          this.logger.error('raft command could not be applied; refused', { index, type: typeof command?.type === 'string' ? command.type.slice(0, 64) : typeof command, error: errorText(error) });
          return { ok: false, error: notApplied } as ApplyResult;
        }
      },
    );
    for (const item of applied) {
      for (const listener of this.listeners) {
        // A listener (events, router updates) that throws must not stop the node: the entry is applied and durable.
        try {
          listener(item);
        } catch (error) {
          this.logger.error('a listener failed on applied model changes', { index: item.index, error: errorText(error) });
        }
      }
    }
    return results;
  }
}

function applyCommand(command: ModelCommand, tx: ApplyTransaction): unknown {
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
    case 'identity.delete': {
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
      tx.delete(tables.identities, command.id);
      return undefined;
    }
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
    case 'ca.create': {
      tx.put<Ca>(tables.cas, command.ca);
      return { id: command.ca.id };
    }
    case 'ca.update': {
      const current = requireRow<Ca>(tx, tables.cas, command.id, 'ca');
      tx.put<Ca>(tables.cas, { ...current, ...command.changes, updatedAt: command.at });
      return undefined;
    }
    case 'ca.verify': {
      const current = requireRow<Ca>(tx, tables.cas, command.id, 'ca');
      if (current.isVerified) throw new CommandRefused({ code: 'CA_ALREADY_VERIFIED', cause: { code: 'CA_ALREADY_VERIFIED', message: `ca ${command.id} is already verified` } });
      tx.put<Ca>(tables.cas, { ...current, isVerified: true, updatedAt: command.at });
      return undefined;
    }
    case 'ca.delete': {
      requireRow<Ca>(tx, tables.cas, command.id, 'ca');
      tx.delete(tables.cas, command.id);
      return undefined;
    }
    case 'enrollment.create': {
      const { enrollment } = command;
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
    case 'enrollment.delete': {
      requireRow<Enrollment>(tx, tables.enrollments, command.id, 'enrollment');
      tx.delete(tables.enrollments, command.id);
      return undefined;
    }
    case 'enrollment.complete': {
      // Checked again here, in log order: two controllers redeeming one token at once cannot both succeed.
      const enrollment = tx.table<Enrollment>(tables.enrollments).get(command.id);
      if (!enrollment || enrollment.token !== command.token) {
        throw new CommandRefused({ code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: 'the enrollment token is unknown or already used' } });
      }
      if (Date.parse(enrollment.expiresAt) <= Date.parse(command.at)) {
        throw new CommandRefused({ code: 'INVALID_ENROLLMENT_TOKEN', cause: { field: 'token', reason: 'the enrollment token expired' } });
      }
      requireRow<Identity>(tx, tables.identities, enrollment.identityId, 'identity', 'identityId');
      const existing = tx.table<Authenticator>(tables.authenticators).findMany('identityId', enrollment.identityId);
      if (existing.some((other) => other.method === command.authenticator.method)) {
        refuse('COULD_NOT_VALIDATE', 'method', `identity already has an authenticator of method ${command.authenticator.method}`, command.authenticator.method);
      }
      tx.delete(tables.enrollments, enrollment.id);
      tx.put<Authenticator>(tables.authenticators, command.authenticator);
      return { identityId: enrollment.identityId, authenticatorId: command.authenticator.id };
    }
    case 'apiSession.create': {
      requireRow<Identity>(tx, tables.identities, command.session.identityId, 'identity', 'identityId');
      tx.put<ApiSession>(tables.apiSessions, command.session);
      return { id: command.session.id };
    }
    case 'apiSession.delete': {
      // Sessions may already be gone (a logout racing an expiry sweep): deleting what remains is not an error.
      let deleted = 0;
      for (const id of command.ids) if (endApiSession(tx, id)) deleted++;
      return { deleted };
    }
    case 'apiSession.touch': {
      const sessions = tx.table<ApiSession>(tables.apiSessions);
      for (const [id, lastActivityAt] of command.activity) {
        const current = sessions.get(id);
        if (current && lastActivityAt > current.lastActivityAt) tx.put<ApiSession>(tables.apiSessions, { ...current, lastActivityAt }, { silent: true });
      }
      return undefined;
    }
    case 'apiSession.satisfyQuery': {
      const current = tx.table<ApiSession>(tables.apiSessions).get(command.id);
      if (current) tx.put<ApiSession>(tables.apiSessions, { ...current, authQueries: current.authQueries.filter((query) => query.typeId !== command.typeId) });
      return undefined;
    }
    case 'raft.noop':
    case 'raft.config':
      return undefined;
    default: {
      if (isMfaCommand(command)) return applyMfaCommand(command, tx);
      if (isServiceCommand(command)) return applyServiceCommand(command, tx);
      if (isConfigCommand(command)) return applyConfigCommand(command, tx);
      if (isRouterCommand(command)) return applyRouterCommand(command, tx);
      const unknown: never = command;
      throw new CommandRefused({ code: 'COULD_NOT_VALIDATE', cause: { field: 'type', reason: `unknown command ${(unknown as { type: string }).type}` } });
    }
  }
}

function requireAuthPolicy(tx: ApplyTransaction, id: string): void {
  if (id !== defaultAuthPolicyId) requireRow<AuthPolicy>(tx, tables.authPolicies, id, 'auth policy', 'authPolicyId');
}

function policyUsesSigner(policy: AuthPolicy, signerId: string): boolean {
  return policy.primary.extJwt.allowedSigners.includes(signerId) || policy.secondary.requireExtJwtSigner === signerId;
}

function requireSigners(tx: ApplyTransaction, policy: AuthPolicy): void {
  for (const id of policy.primary.extJwt.allowedSigners) requireRow<ExternalJwtSigner>(tx, tables.externalJwtSigners, id, 'external jwt signer', 'primary.extJwt.allowedSigners');
  if (policy.secondary.requireExtJwtSigner !== null) {
    requireRow<ExternalJwtSigner>(tx, tables.externalJwtSigners, policy.secondary.requireExtJwtSigner, 'external jwt signer', 'secondary.requireExtJwtSigner');
  }
}

function requireRow<T extends { id: string }>(tx: ApplyTransaction, table: string, id: string, entity: string, field?: string): T {
  const row = tx.table<T>(table).get(id);
  if (row) return row;
  if (field) return refuse('COULD_NOT_VALIDATE', field, `${entity} with id ${id} not found`, id);
  throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `${entity} with id ${id} not found` } });
}
