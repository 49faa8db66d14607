// Applies committed model commands, in log order, to the model store. Each entry is all-or-nothing: a refused
// command rolls back what it touched and reports an API error code; the batch and its raft index persist together.
import type { ApplyFailure, ApplyResult, CommittedEntry, StateMachine } from '../raft/state-machine.ts';
import { UniqueIndexViolation } from '../store/entity-table.ts';
import type { ApplyTransaction, EntityChange, ModelStore } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';
import type { ApiSession, Authenticator, Identity } from './entities.ts';
import { tables } from './entities.ts';

export class CommandRefused extends Error {
  constructor(readonly failure: ApplyFailure) {
    super(failure.code);
  }
}

const refuse = (code: string, field: string, reason: string, value?: unknown): never => {
  throw new CommandRefused({ code, cause: value === undefined ? { field, reason } : { field, reason, value } });
};

/** Which request field a unique-index clash is reported against. */
const indexFields: Record<string, string> = { name: 'name', externalId: 'externalId', username: 'username', tokenHash: 'token' };

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

  constructor(readonly store: ModelStore) {}

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
          throw error;
        }
      },
    );
    for (const item of applied) for (const listener of this.listeners) listener(item);
    return results;
  }
}

function applyCommand(command: ModelCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'identity.create': {
      tx.put<Identity>(tables.identities, command.identity);
      for (const authenticator of command.authenticators ?? []) tx.put<Authenticator>(tables.authenticators, authenticator);
      return { id: command.identity.id };
    }
    case 'identity.update': {
      const current = requireRow<Identity>(tx, tables.identities, command.id, 'identity');
      tx.put<Identity>(tables.identities, { ...current, ...command.changes, updatedAt: command.at });
      return undefined;
    }
    case 'identity.delete': {
      const current = requireRow<Identity>(tx, tables.identities, command.id, 'identity');
      if (current.isDefaultAdmin && !command.allowDefaultAdmin) {
        throw new CommandRefused({ code: 'ENTITY_CAN_NOT_BE_DELETED', cause: { code: 'ENTITY_CAN_NOT_BE_DELETED', message: 'the default admin identity can not be deleted' } });
      }
      for (const session of tx.table<ApiSession>(tables.apiSessions).findMany('identityId', command.id)) tx.delete(tables.apiSessions, session.id);
      for (const authenticator of tx.table<Authenticator>(tables.authenticators).findMany('identityId', command.id)) {
        tx.delete(tables.authenticators, authenticator.id);
      }
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
      tx.put<Authenticator>(tables.authenticators, { ...current, ...command.changes, updatedAt: command.at });
      return undefined;
    }
    case 'authenticator.delete': {
      requireRow<Authenticator>(tx, tables.authenticators, command.id, 'authenticator');
      tx.delete(tables.authenticators, command.id);
      return undefined;
    }
    case 'apiSession.create': {
      requireRow<Identity>(tx, tables.identities, command.session.identityId, 'identity', 'identityId');
      tx.put<ApiSession>(tables.apiSessions, command.session);
      return { id: command.session.id };
    }
    case 'apiSession.delete': {
      // Sessions may already be gone (a logout racing an expiry sweep): deleting what remains is not an error.
      let deleted = 0;
      for (const id of command.ids) if (tx.delete(tables.apiSessions, id)) deleted++;
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
    case 'raft.noop':
    case 'raft.config':
      return undefined;
    default: {
      const unknown: never = command;
      throw new CommandRefused({ code: 'COULD_NOT_VALIDATE', cause: { field: 'type', reason: `unknown command ${(unknown as { type: string }).type}` } });
    }
  }
}

function requireRow<T extends { id: string }>(tx: ApplyTransaction, table: string, id: string, entity: string, field?: string): T {
  const row = tx.table<T>(table).get(id);
  if (row) return row;
  if (field) return refuse('COULD_NOT_VALIDATE', field, `${entity} with id ${id} not found`, id);
  throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `${entity} with id ${id} not found` } });
}
