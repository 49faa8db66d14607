// A controller's log file, chunk by chunk: the scanner finds the lines holding a rule's needle, and only those are
// parsed and checked against the rules. A malformed line is counted and skipped.

import { LineScanner } from '../core/matching/line-scanner.ts';
import { matchLogLine } from '../core/matching/log-line.ts';
import type { LogNeedleTable } from '../core/matching/log-line.ts';
import type { ChunkConsumer } from './file-follower.ts';
import type { RecordSink } from './record-sink.ts';

export class LogConsumer implements ChunkConsumer {
  private readonly scanner: LineScanner;

  constructor(
    private readonly controller: string,
    private readonly table: LogNeedleTable,
    maxLineBytes: number,
    private readonly sink: RecordSink,
  ) {
    this.scanner = new LineScanner({ needles: table.needles, maxLineBytes });
  }

  get pendingBytes(): number {
    return this.scanner.pendingBytes;
  }

  reset(): void {
    this.scanner.reset();
  }

  consume(chunk: Buffer): void {
    const result = this.scanner.scan(chunk);
    this.sink.lines('log', result.lines);
    this.sink.skipped('log', 'oversized', result.oversized);
    for (const match of result.matches) {
      const outcome = matchLogLine(match, this.table);
      if (outcome.kind === 'malformed') {
        this.sink.skipped('log', outcome.reason);
        continue;
      }
      if (outcome.kind === 'no-rule') continue;
      outcome.rules.forEach((rule, index) => {
        this.sink.matched(rule.id);
        this.sink.observe({ kind: 'log', now: this.sink.now(), controller: this.controller, rule: rule.id, line: outcome.lines[index]!, ...outcome.record });
      });
    }
  }
}
