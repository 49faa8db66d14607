// The drivers' log sink: lines batched per turn of the event loop (batched-line-sink.ts) and written by `write`
// (standard error, or a log file's stream), with whatever is still batched written when the process exits: after
// process.exit(), the end of the event loop or an uncaught exception (whose report Node prints first). A SIGKILL
// loses at most the lines of the turn it interrupts.
import { batchedLineSink, type BatchedLineSink } from './batched-line-sink.ts';

/** `flush()` before writing to the same output directly, so the lines logged before come first. */
export function processLogSink(write: (text: string) => void): BatchedLineSink {
  const batched = batchedLineSink(write, (run) => void setImmediate(run));
  process.on('exit', batched.flush);
  return batched;
}

/** Standard error: synchronous for a file or a pipe on Linux, so the exit flush is written before the process ends. */
export function stderrLogSink(): BatchedLineSink {
  return processLogSink((text) => void process.stderr.write(text));
}
