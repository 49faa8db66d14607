// How CA commands apply: a CA is verified once.
import type { ApplyTransaction } from '../store/model-store.ts';
import { CommandRefused } from './command-refused.ts';
import type { ModelCommand } from './commands.ts';
import type { Ca } from './entities.ts';
import { tables } from './entities.ts';
import { requireRow, unknownCommand } from './require-row.ts';

export type CaCommand = Extract<ModelCommand, { type: `ca.${string}` }>;

export function applyCaCommand(command: CaCommand, tx: ApplyTransaction): unknown {
  switch (command.type) {
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
    default:
      return unknownCommand((command as { type: string }).type);
  }
}
