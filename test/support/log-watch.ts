// Reads the controller's JSON-lines log as an operator would: the lines written after a mark, waited for with a limit.
import { readFileSync } from 'node:fs';

export type LogRecord = Record<string, unknown>;

export class LogWatch {
  constructor(private readonly file: string) {}

  /** Where the log ends now; later calls look only at lines written after it. */
  mark(): number {
    return this.bytes().length;
  }

  /** The records written since `mark`. */
  since(mark: number): LogRecord[] {
    return this.bytes()
      .subarray(mark)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as LogRecord];
        } catch {
          return [];
        }
      });
  }

  /** The first record since `mark` that matches, waiting up to `timeoutMs` for the logger to flush it. */
  async waitFor(mark: number, matches: (record: LogRecord) => boolean, timeoutMs = 5_000): Promise<LogRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.since(mark).find(matches);
      if (found) return found;
      if (Date.now() > deadline) {
        throw new Error(`no matching log line within ${timeoutMs} ms; lines since the mark:\n${JSON.stringify(this.since(mark), null, 1)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private bytes(): Buffer {
    try {
      return readFileSync(this.file);
    } catch {
      return Buffer.alloc(0);
    }
  }
}
