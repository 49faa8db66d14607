// Commands on admin-made terminators and on the settings of router-registered ones, and how they apply. The service
// and router a terminator names are checked again here, in log order (either may be deleted meanwhile); deleting a
// service or a router deletes its terminators and their settings (deleteTerminatorsOf).
import type { ApplyTransaction } from '../store/model-store.ts';
import { routerTables } from './router-entities.ts';
import { requireRow } from './require-row.ts';
import { serviceTables } from './service-entities.ts';
import { terminatorTables, type AdminTerminator, type TerminatorSettings } from './terminator-entities.ts';

/** What an update replaces (the hosting identity and its secret are fixed at creation). */
export type AdminTerminatorBody = Pick<AdminTerminator, 'serviceId' | 'routerId' | 'binding' | 'address' | 'cost' | 'precedence' | 'tags'>;

export type TerminatorCommand =
  | { type: 'terminator.create'; terminator: AdminTerminator }
  | { type: 'terminator.update'; id: string; at: string; terminator: AdminTerminatorBody }
  | { type: 'terminator.delete'; id: string }
  /** Cost, precedence and tags for a router-registered terminator (created or replaced). */
  | { type: 'terminator.settings'; settings: TerminatorSettings }
  /** Forgets the settings of a terminator (the data-integrity fix for settings whose service or router is gone). */
  | { type: 'terminator.deleteSettings'; id: string };

const terminatorCommandTypes = new Set<string>(['terminator.create', 'terminator.update', 'terminator.delete', 'terminator.settings', 'terminator.deleteSettings']);

export function isTerminatorCommand(command: { type: string }): command is TerminatorCommand {
  return terminatorCommandTypes.has(command.type);
}

export function applyTerminatorCommand(command: TerminatorCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
    case 'terminator.create':
      requireEnds(tx, command.terminator);
      tx.put<AdminTerminator>(terminatorTables.terminators, command.terminator);
      return { id: command.terminator.id };
    case 'terminator.update': {
      const current = requireRow<AdminTerminator>(tx, terminatorTables.terminators, command.id, 'terminator');
      requireEnds(tx, command.terminator);
      tx.put<AdminTerminator>(terminatorTables.terminators, { ...current, ...command.terminator, updatedAt: command.at });
      return undefined;
    }
    case 'terminator.delete':
      requireRow<AdminTerminator>(tx, terminatorTables.terminators, command.id, 'terminator');
      tx.delete(terminatorTables.terminators, command.id);
      return undefined;
    case 'terminator.settings': {
      requireEnds(tx, command.settings);
      const current = tx.table<TerminatorSettings>(terminatorTables.terminatorSettings).get(command.settings.id);
      tx.put<TerminatorSettings>(terminatorTables.terminatorSettings, { ...command.settings, createdAt: current?.createdAt ?? command.settings.createdAt });
      return undefined;
    }
    case 'terminator.deleteSettings':
      requireRow<TerminatorSettings>(tx, terminatorTables.terminatorSettings, command.id, 'terminator settings');
      tx.delete(terminatorTables.terminatorSettings, command.id);
      return undefined;
  }
}

/** Deletes the terminators (and terminator settings) of a service or router being deleted. */
export function deleteTerminatorsOf(tx: ApplyTransaction, index: 'serviceId' | 'routerId', id: string): void {
  for (const table of [terminatorTables.terminators, terminatorTables.terminatorSettings]) {
    for (const row of tx.table<AdminTerminator | TerminatorSettings>(table).findMany(index, id)) tx.delete(table, row.id);
  }
}

function requireEnds(tx: ApplyTransaction, row: { serviceId: string; routerId: string }): void {
  requireRow(tx, serviceTables.services, row.serviceId, 'service', 'service');
  requireRow(tx, routerTables.edgeRouters, row.routerId, 'router', 'router');
}
