// Where events go: JSON lines appended to a file, or stdout. Writes are buffered by the stream, never awaited on
// the apply path.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

export interface EventSink {
  write(event: Record<string, unknown>): void;
  close(): Promise<void>;
}

export function fileEventSink(path: string): EventSink {
  mkdirSync(dirname(path), { recursive: true });
  const stream: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o640 });
  return {
    write: (event) => void stream.write(`${JSON.stringify(event)}\n`),
    close: () => new Promise((resolve) => stream.end(resolve)),
  };
}

export function stdoutEventSink(): EventSink {
  return {
    write: (event) => void process.stdout.write(`${JSON.stringify(event)}\n`),
    close: async () => undefined,
  };
}
