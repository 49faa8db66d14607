// A state machine's data crossing between the raft thread and the controller's thread in slices. Posted as one
// message, a snapshot of the whole model was serialised into one buffer as large as the model (hundreds of MB at 1M
// identities) beside the object graph it copied, on the sending thread, and parsed in one go on the other. Instead
// the data's large arrays (the model's tables) leave as slices of at most `itemsPerSlice` items: the first message
// carries the data with those arrays empty, each slice appends items to the array at its path, and the receiver
// hands the state machine the whole data only once the announced number of slices has arrived.

import { arrayAtPath, withoutLargeArrays, type ArrayPath } from '../large-arrays.ts';

export interface StateSlice {
  readonly path: readonly string[];
  readonly items: readonly unknown[];
}

/** Arrays longer than this leave in slices; shorter ones stay in the head. */
const sliceArraysLongerThan = 64;
export const defaultItemsPerSlice = 2_000;

/** `data` with its large arrays emptied (the head), and the slices that fill them again, in order. */
export function sliceState(data: unknown, itemsPerSlice = defaultItemsPerSlice): { head: unknown; slices: StateSlice[] } {
  if (!Number.isInteger(itemsPerSlice) || itemsPerSlice < 1) throw new Error(`itemsPerSlice ${itemsPerSlice} must be a whole number ≥ 1`);
  const arrays: Array<{ path: ArrayPath; items: readonly unknown[] }> = [];
  const head = withoutLargeArrays(data, sliceArraysLongerThan, arrays);
  const slices: StateSlice[] = [];
  for (const { path, items } of arrays) {
    for (let from = 0; from < items.length; from += itemsPerSlice) slices.push({ path, items: items.slice(from, from + itemsPerSlice) });
  }
  return { head, slices };
}

/** Data being received: the head, filled in by slices until `expected` have arrived. */
export class StateAssembly {
  private received = 0;

  constructor(
    private readonly head: unknown,
    readonly expected: number,
  ) {
    if (!Number.isInteger(expected) || expected < 0) throw new Error(`a state in ${String(expected)} slices`);
  }

  get complete(): boolean {
    return this.received === this.expected;
  }

  /** Appends a slice's items to the array at its path; throws when the path does not lead to one, or past the count. */
  add(slice: StateSlice): void {
    if (this.complete) throw new Error(`a state slice past the ${this.expected} announced`);
    const target = arrayAtPath(this.head, slice.path);
    if (!target) throw new Error(`a state slice for ${JSON.stringify(slice.path)}, which is not an array in the state`);
    for (const item of slice.items) target.push(item);
    this.received++;
  }

  /** The whole data; only once complete. */
  data(): unknown {
    if (!this.complete) throw new Error(`the state has ${this.received} of ${this.expected} slices`);
    return this.head;
  }
}
