// Circuit reports (`router.circuit`) wait here while the control channel is down and go out, oldest first, once a
// controller has welcomed the router again: the events are the controller's record of the data plane, and a
// failover should not leave holes in it. At most `capacity` wait; beyond that the oldest are dropped and counted.
import type { RouterCircuitReport } from '../../common/control-channel/control-messages.ts';

export class CircuitReportQueue {
  private readonly waiting: RouterCircuitReport[] = [];
  /** Reports dropped because the queue was full. */
  dropped = 0;

  constructor(
    private readonly capacity: number,
    /** Sends one report; false when the channel cannot take it now. */
    private readonly send: (report: RouterCircuitReport) => boolean,
  ) {}

  /** Sends at once when it can (what waits going first), else keeps it. */
  offer(report: RouterCircuitReport): void {
    if (this.waiting.length > 0) this.flush();
    if (this.waiting.length === 0 && this.send(report)) return;
    if (this.waiting.length >= this.capacity) {
      this.waiting.shift();
      this.dropped++;
    }
    this.waiting.push(report);
  }

  /** The channel is up again: sends what waits, in order, until the channel refuses one. */
  flush(): void {
    while (this.waiting.length > 0) {
      if (!this.send(this.waiting[0]!)) return;
      this.waiting.shift();
    }
  }

  get size(): number {
    return this.waiting.length;
  }
}
