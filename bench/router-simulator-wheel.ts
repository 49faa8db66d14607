// A timer wheel for the router simulator: thousands of routers each need something every interval (a heartbeat, a
// metrics report), and one timer per router per duty costs the process more than the work. The interval is cut into
// `slots`; each item sits in one slot (filled in turn, so the work spreads evenly) and is due each time the wheel's
// hand passes it. The driver calls `advance()` every interval / slots. Pure: no timers here.

export class TimerWheel<T> {
  private readonly slots: Set<T>[];
  private readonly slotOf = new Map<T, number>();
  private hand = 0;
  private nextSlot = 0;

  constructor(slotCount: number) {
    if (!Number.isInteger(slotCount) || slotCount < 1) throw new Error(`a timer wheel needs a whole number of slots, not ${slotCount}`);
    this.slots = Array.from({ length: slotCount }, () => new Set<T>());
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Puts the item on the wheel (once; adding it again leaves it where it is). */
  add(item: T): void {
    if (this.slotOf.has(item)) return;
    const slot = this.nextSlot;
    this.nextSlot = (this.nextSlot + 1) % this.slots.length;
    this.slots[slot]!.add(item);
    this.slotOf.set(item, slot);
  }

  remove(item: T): void {
    const slot = this.slotOf.get(item);
    if (slot === undefined) return;
    this.slots[slot]!.delete(item);
    this.slotOf.delete(item);
  }

  /** The items due now (the slot under the hand); the hand moves on. */
  advance(): T[] {
    const due = [...this.slots[this.hand]!];
    this.hand = (this.hand + 1) % this.slots.length;
    return due;
  }
}
