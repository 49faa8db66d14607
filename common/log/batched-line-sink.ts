// Log lines leave in one write per turn of the event loop, not one each. A busy process logs several lines per turn
// (a router: a circuit created, another closed, a third terminated), and writing each to a pipe or file is its own
// system call and, on a pipe, a wake-up of the reader. Lines are kept in order; the batch is written at the end of the
// turn (the injected `schedule`, setImmediate in the drivers), at once when it reaches `maxBatchBytes`, and by
// `flush()`, which the process drivers call on exit so a crash or process.exit() loses no line. Pure: the writer
// and the scheduler are injected.
import type { LogSink } from './logger.ts';

export interface BatchedLineSink {
  /** The logger's sink: takes one line (without its newline). */
  readonly sink: LogSink;
  /** Writes what is batched now, in one write; nothing when empty. */
  flush(): void;
}

/** A batch larger than this is written at once rather than at the end of the turn (bounds the memory held). */
export const defaultMaxBatchBytes = 64 * 1024;

export function batchedLineSink(write: (text: string) => void, schedule: (run: () => void) => void, maxBatchBytes = defaultMaxBatchBytes): BatchedLineSink {
  let batch = '';
  let scheduled = false;
  const flush = (): void => {
    if (batch === '') return;
    const text = batch;
    batch = '';
    write(text);
  };
  const endOfTurn = (): void => {
    scheduled = false;
    flush();
  };
  return {
    sink: (line) => {
      batch += `${line}\n`;
      if (batch.length >= maxBatchBytes) return flush();
      if (scheduled) return;
      scheduled = true;
      schedule(endOfTurn);
    },
    flush,
  };
}
