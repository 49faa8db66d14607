// What the commit and answer checkers read of a node's disk: the hard state and the term of the entry it holds at an
// index (an index its newest snapshot covers counts as held, with the snapshot's term at its own index).
import type { HardState } from '../../core/types.ts';

export interface DurableView {
  readonly hardState: HardState | undefined;
  /** The term of the durable entry at `index`; for an index below the newest snapshot, the entry counts as held
   * (`covered`); undefined when the disk holds nothing there. */
  termAt(index: number): number | 'covered' | undefined;
  last(): DurableLast;
}

/** The last entry a disk holds (or its newest snapshot's last entry): what a restarted node would campaign with. */
export interface DurableLast {
  readonly index: number;
  readonly term: number;
}
