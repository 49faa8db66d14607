// A command the state machine refuses: nothing it touched stays, and the failure goes back to the proposer.
import type { ApplyFailure } from '../raft/state-machine.ts';

export class CommandRefused extends Error {
  constructor(readonly failure: ApplyFailure) {
    super(failure.code);
  }
}
