// Terminators an admin made through the management API (POST /terminators), and the cost, precedence and tags an
// admin set on a terminator a router registered. The router-registered terminators themselves are presence, not
// model state (server/routers/terminator-registry.ts); what an admin says about them must outlive the router's
// channel, so it is kept here, by the terminator's id (stable for a router and a service).
import { EntityTable, type Row } from '../store/entity-table.ts';
import type { BaseEntity } from './base-entity.ts';

export type TerminatorPrecedence = 'default' | 'required' | 'failed';

export const terminatorPrecedences: readonly TerminatorPrecedence[] = ['default', 'required', 'failed'];

/** The highest cost a terminator may have (the spec's terminatorCost). */
export const maxTerminatorCost = 65535;

export interface AdminTerminator extends BaseEntity {
  readonly serviceId: string;
  readonly routerId: string;
  readonly binding: string;
  readonly address: string;
  readonly cost: number;
  readonly precedence: TerminatorPrecedence;
  /** The hosting identity named at creation ('' when none). */
  readonly identity: string;
  /** The identitySecret given at creation (base64); kept, never shown. */
  readonly identitySecret: string | null;
}

/** What an admin set on a router-registered terminator; its id is the terminator's. */
export interface TerminatorSettings extends BaseEntity {
  /** The terminator's service and router: the settings go when either does. */
  readonly serviceId: string;
  readonly routerId: string;
  readonly cost: number;
  readonly precedence: TerminatorPrecedence;
}

export const terminatorTables = {
  terminators: 'terminators',
  terminatorSettings: 'terminatorSettings',
} as const;

export function createTerminatorTables(): EntityTable<Row>[] {
  return [
    new EntityTable<AdminTerminator>(terminatorTables.terminators)
      .multiIndex('serviceId', (row) => row.serviceId)
      .multiIndex('routerId', (row) => row.routerId),
    new EntityTable<TerminatorSettings>(terminatorTables.terminatorSettings)
      .multiIndex('serviceId', (row) => row.serviceId)
      .multiIndex('routerId', (row) => row.routerId),
  ] as unknown as EntityTable<Row>[];
}
