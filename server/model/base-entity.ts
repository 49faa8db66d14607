// What every replicated row has; its own file so that entities.ts and the *-entities.ts files it gathers import it
// without importing each other.
import type { Row } from '../store/entity-table.ts';

export interface BaseEntity extends Row {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly tags: Readonly<Record<string, unknown>>;
}
