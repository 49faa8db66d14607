// No acknowledged proposal is lost: a proposal whose promise resolved with index i is what the cluster committed at
// i, for the rest of the history.
import type { History } from './history.ts';
import { SafetyViolation } from './safety-violation.ts';

export class AcknowledgedProposals {
  /** Client id → the index its proposal was acknowledged at. */
  readonly byClient = new Map<number, number>();
  private checkedThrough = 0;
  private readonly order: number[] = [];

  acknowledge(client: number, index: number): void {
    this.byClient.set(client, index);
    this.order.push(client);
  }

  get count(): number {
    return this.order.length;
  }

  /** Stops checking the proposals acknowledged at `indexes` (a forced recovery lost them, recovery-epoch.ts);
   * returns their clients. */
  forgetIndexes(indexes: ReadonlySet<number>): number[] {
    const forgotten: number[] = [];
    for (const [client, index] of this.byClient) if (indexes.has(index)) forgotten.push(client);
    for (const client of forgotten) this.byClient.delete(client);
    return forgotten;
  }

  /** The highest index a proposal still checked was acknowledged at (0: none). */
  highestIndex(): number {
    let highest = 0;
    for (const index of this.byClient.values()) highest = Math.max(highest, index);
    return highest;
  }

  /** Every acknowledged proposal against what was committed. An index, once committed, never changes (state machine
   * safety), so only the acknowledgements not yet matched need a look; a matched one stays matched. */
  check(history: History): void {
    for (; this.checkedThrough < this.order.length; this.checkedThrough++) {
      const client = this.order[this.checkedThrough]!;
      const index = this.byClient.get(client);
      if (index === undefined) continue;
      const committed = history.committed.get(index);
      if (!committed || !committed.key.endsWith(`:${clientKey(client)}`)) {
        throw new SafetyViolation('acknowledged proposal lost', `proposal ${client} acknowledged at ${index} is not what was committed there (${committed?.key ?? 'nothing'})`);
      }
    }
  }
}

/** The command a simulated client proposes. */
export const clientCommand = (client: number): { readonly type: string; readonly client: number } => ({ type: 'sim.write', client });

/** How a client's proposal reads in an applied entry's key (sim-state-machine.ts). */
export const clientKey = (client: number): string => `normal:${JSON.stringify(clientCommand(client))}`;
