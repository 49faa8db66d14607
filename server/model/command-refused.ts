// A command the state machine refuses: nothing it touched stays, and the failure goes back to the proposer. Its code
// is one of the domain's error codes, so the edge services re-throw it as is (model-writer.ts).
import type { EdgeErrorCause, EdgeErrorCode } from '../edge/edge-error.ts';

export interface ModelRefusal {
  readonly code: EdgeErrorCode;
  readonly cause?: EdgeErrorCause;
}

export class CommandRefused extends Error {
  constructor(readonly failure: ModelRefusal) {
    super(failure.code);
  }
}
