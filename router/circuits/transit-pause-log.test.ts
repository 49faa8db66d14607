// A link that pauses and resumes many times a second is logged once a minute, with the pauses left unlogged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { throttledTransitLog } from './transit-pause-log.ts';

describe('throttledTransitLog', () => {
  it('logs a link\'s pause at most once a minute and its resume only after a logged pause; each link on its own', () => {
    const logger = createMemoryLogger('info');
    let now = 1_000_000;
    const log = throttledTransitLog(logger, { now: () => now }, { highWaterBytes: 8, lowWaterBytes: 2 });
    const a = { id: 'a', pauseReading: () => undefined, resumeReading: () => undefined };
    const b = { id: 'b', pauseReading: () => undefined, resumeReading: () => undefined };
    for (let i = 0; i < 100; i++) {
      log.paused(a, 9);
      log.resumed(a, 2);
      now += 10;
    }
    log.paused(b, 9);
    now += 60_000;
    log.paused(a, 12);
    log.resumed(a, 1);
    const lines = logger.lines.map((line) => [line.msg, line.linkId, line.unloggedPauses]);
    assert.deepEqual(lines, [
      ['link reading paused: forwarded bytes over the high-water mark', 'a', undefined],
      ['link reading resumed: forwarded bytes under the low-water mark', 'a', undefined],
      ['link reading paused: forwarded bytes over the high-water mark', 'b', undefined],
      ['link reading paused: forwarded bytes over the high-water mark', 'a', 99],
      ['link reading resumed: forwarded bytes under the low-water mark', 'a', undefined],
    ]);
  });
});
