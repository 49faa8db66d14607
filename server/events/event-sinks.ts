// Where events go: JSON lines appended to a file, or stdout. Writes are gathered per tick and buffered by the
// stream, never awaited on the apply path.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

export interface EventSink {
  write(event: Record<string, unknown>): void;
  close(): Promise<void>;
}

export function fileEventSink(path: string): EventSink {
  mkdirSync(dirname(path), { recursive: true });
  const stream: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o640 });
  // The events of one tick (an apply batch emits several) go out as one write: a write per event cost the apply
  // path a file system call each.
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    stream.write(text);
  };
  return {
    write: (event) => {
      if (pending.push(`${JSON.stringify(event)}\n`) === 1) setImmediate(flush);
    },
    close: () =>
      new Promise((resolve) => {
        flush();
        stream.end(resolve);
      }),
  };
}

export function stdoutEventSink(): EventSink {
  return {
    write: (event) => void process.stdout.write(`${JSON.stringify(event)}\n`),
    close: async () => undefined,
  };
}
