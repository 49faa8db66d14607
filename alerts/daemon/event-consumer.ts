// A controller's JSON-lines event file, chunk by chunk: every cluster event is parsed (they are rare), but of the
// entity change events only the newest of each chunk is, since commit lag needs just the latest raftIndex of each
// controller. A malformed event is counted and skipped.

import { LineScanner } from '../core/matching/line-scanner.ts';
import { parseClusterEvent, parseEntityChange } from '../core/matching/event-line.ts';
import { clusterEventNeedle, entityChangeNeedle, entityChangeRuleId, eventRuleFor } from '../core/rules/alert-rules.ts';
import type { ChunkConsumer } from './file-follower.ts';
import type { RecordSink } from './record-sink.ts';

export class EventConsumer implements ChunkConsumer {
  private readonly scanner: LineScanner;

  constructor(
    private readonly controller: string,
    maxLineBytes: number,
    private readonly sink: RecordSink,
  ) {
    this.scanner = new LineScanner({ needles: [clusterEventNeedle], lastNeedles: [entityChangeNeedle], maxLineBytes });
  }

  get pendingBytes(): number {
    return this.scanner.pendingBytes;
  }

  reset(): void {
    this.scanner.reset();
  }

  consume(chunk: Buffer): void {
    const result = this.scanner.scan(chunk);
    this.sink.lines('events', result.lines);
    this.sink.skipped('events', 'oversized', result.oversized);
    for (const match of result.matches) {
      const parsed = parseClusterEvent(match.text);
      if (!parsed.ok) {
        this.sink.skipped('events', parsed.reason);
        continue;
      }
      const rule = eventRuleFor(parsed.value.eventType);
      if (rule) this.sink.matched(rule.id);
      this.sink.observe({ kind: 'cluster-event', now: this.sink.now(), controller: this.controller, ...parsed.value });
    }
    const entity = result.last[0]!;
    this.sink.matched(entityChangeRuleId, entity.count);
    for (const line of entity.newest) {
      const parsed = parseEntityChange(line);
      if (!parsed.ok) {
        this.sink.skipped('events', parsed.reason);
        continue;
      }
      this.sink.observe({ kind: 'entity-change', now: this.sink.now(), controller: this.controller, ...parsed.value });
      break;
    }
  }
}
