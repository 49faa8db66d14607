// Applies committed model commands, in log order, to the model store. Each entry is all-or-nothing: a refused
// command rolls back what it touched and reports an API error code; the batch and its raft index persist together.
// Only a storage failure escapes apply (and stops the raft node); whatever else a command's apply throws refuses it.
import { silentLogger, type Logger } from '../../common/log/logger.ts';
import type { ApplyFailure, ApplyResult, CommittedEntry, StateMachine } from '../raft/state-machine.ts';
import { CommandRefused } from './command-refused.ts';
import { applyCommand } from './command-table.ts';
import { UniqueIndexViolation } from '../store/entity-table.ts';
import type { EntityChange, ModelStore } from '../store/model-store.ts';
import type { ModelCommand } from './commands.ts';

export { CommandRefused } from './command-refused.ts';
export { defaultAuthPolicyId } from './auth-policy-commands.ts';

/** What the proposer of a command that failed to apply is told (the API answers 400 INVALID_FIELD). */
const notApplied: ApplyFailure = { code: 'INVALID_FIELD', cause: { field: '(root)', reason: 'the request could not be applied to the model; nothing was changed' } };

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : String(error).slice(0, 500);
}

/** Which request field a unique-index clash is reported against. */
const indexFields: Record<string, string> = { name: 'name', externalId: 'externalId', username: 'username', tokenHash: 'token', fingerprint: 'certPem', token: 'token' };

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
    for (const listener of this.replacedListeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error('a listener failed on a replaced model', { index, error: errorText(error) });
      }
    }
  }

  private readonly listeners: ChangeListener[] = [];
  private readonly replacedListeners: Array<() => void> = [];

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

  /** Listeners hear that a snapshot replaced the whole model (they hear no entity changes for it). */
  onReplaced(listener: () => void): void {
    this.replacedListeners.push(listener);
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
