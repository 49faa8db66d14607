// One simulated process's clock. Its timers run on the machine's monotonic time, which passes a little faster or
// slower than the simulation's (drift); its wall clock (`now`) can also be stepped, as NTP does, which moves
// deadlines but not timers.
import { ManualRaftTimers } from '../node/raft-timers.ts';

export class SimClock extends ManualRaftTimers {
  private offset: number;

  constructor(
    private readonly rate: number,
    wallOffset: number,
  ) {
    super(0);
    this.offset = wallOffset;
  }

  override now(): number {
    return super.now() + this.offset;
  }

  /** The wall clock jumps by `ms` (either way); timers are not affected. */
  step(ms: number): void {
    this.offset += ms;
  }

  get wallOffset(): number {
    return this.offset;
  }

  /** `ms` of simulated time passed: this machine's timers see it at their own rate. */
  elapse(ms: number): void {
    this.advance(ms * this.rate);
  }
}
