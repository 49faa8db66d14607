// trace.path: every decoded control message, both directions, as JSON lines
// `{"time", "direction": "send"|"recv", "controller", "message"}`. Lines go through a bounded queue (one writer): when
// the disk falls behind by more than `maxQueued` lines, further lines are dropped and counted, never buffered.

import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { BoundedWorkQueue } from '../work/bounded-work-queue.ts';
import type { TraceDirection } from './control-channel.ts';

export class TraceWriter {
  private readonly stream: WriteStream;
  private readonly queue: BoundedWorkQueue<string>;

  constructor(
    readonly path: string,
    maxQueued: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', (error) => logger.error('trace file error', { path, error: error.message }));
    this.queue = new BoundedWorkQueue<string>({
      maxQueued,
      workers: 1,
      handle: (line) =>
        new Promise<void>((resolve) => {
          if (this.stream.write(line)) resolve();
          else this.stream.once('drain', resolve);
        }),
    });
  }

  get dropped(): number {
    return this.queue.refused;
  }

  record(direction: TraceDirection, message: unknown, controller: string): void {
    const line = `${JSON.stringify({ time: new Date(this.clock.now()).toISOString(), direction, controller, message })}\n`;
    if (!this.queue.push(line) && (this.queue.refused === 1 || this.queue.refused % 1000 === 0)) {
      this.logger.warn('trace queue full: lines dropped', { path: this.path, dropped: this.queue.refused });
    }
  }

  async close(): Promise<void> {
    await this.queue.idle();
    await new Promise<void>((resolve) => this.stream.end(resolve));
  }
}
