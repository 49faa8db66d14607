// Where events go: JSON lines appended to a file, or stdout. The events of one tick (an apply batch emits several)
// are gathered and appended in one write, made directly (a small append to the page cache costs microseconds)
// rather than through the thread pool, whose hand-off and wake-up cost the apply path more than the write itself.
// Nothing here is awaited on the apply path, and a failing write is reported, never thrown at the apply.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface EventSink {
  write(event: Record<string, unknown>): void;
  close(): Promise<void>;
}

/** Told when an append fails (disk full, file removed from under a read-only mount…), once per failing run. */
export type EventSinkFailure = (error: Error) => void;

export function fileEventSink(path: string, onFailure: EventSinkFailure = () => undefined): EventSink {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a', 0o640);
  let pending: string[] = [];
  let closed = false;
  let failing = false;
  const flush = () => {
    if (pending.length === 0 || closed) return;
    const text = pending.join('');
    pending = [];
    try {
      writeSync(fd, text);
      failing = false;
    } catch (error) {
      if (!failing) onFailure(error as Error);
      failing = true;
    }
  };
  return {
    write: (event) => {
      if (closed) return;
      if (pending.push(`${JSON.stringify(event)}\n`) === 1) setImmediate(flush);
    },
    close: async () => {
      if (closed) return;
      flush();
      closed = true;
      closeSync(fd);
    },
  };
}

export function stdoutEventSink(): EventSink {
  return {
    write: (event) => void process.stdout.write(`${JSON.stringify(event)}\n`),
    close: async () => undefined,
  };
}
