// How a command's apply refuses: a row it needs that is missing, or a rule it breaks. Shared by the command
// families so a missing row reads the same everywhere (NOT_FOUND for the command's own row, COULD_NOT_VALIDATE for a
// row a field names).
import type { EdgeErrorCode } from '../edge/edge-error.ts';
import type { ApplyTransaction } from '../store/model-store.ts';
import { CommandRefused } from './command-refused.ts';

/** Refuses the command with `code`, against a request field. */
export function refuse(code: EdgeErrorCode, field: string, reason: string, value?: unknown): never {
  throw new CommandRefused({ code, cause: value === undefined ? { field, reason } : { field, reason, value } });
}

/** The row, or a refusal: against `field` when a request field named it, NOT_FOUND when it is the command's own. */
export function requireRow<T extends { id: string }>(tx: ApplyTransaction, table: string, id: string, entity: string, field?: string): T {
  const row = tx.table<T>(table).get(id);
  if (row) return row;
  if (field) return refuse('COULD_NOT_VALIDATE', field, `${entity} with id ${id} not found`, id);
  throw new CommandRefused({ code: 'NOT_FOUND', cause: { code: 'UNHANDLED', message: `${entity} with id ${id} not found` } });
}

/** A command type no applier knows (a newer controller's, or a corrupt entry): refused, nothing changed. */
export function unknownCommand(type: string): never {
  throw new CommandRefused({ code: 'COULD_NOT_VALIDATE', cause: { field: 'type', reason: `unknown command ${type}` } });
}
