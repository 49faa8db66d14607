// A state machine's data split at its large arrays (the model's tables) and filled in again, as both the snapshot
// transfer between controllers (transport/snapshot-transfer.ts) and the hand-over between the raft thread and the
// controller's thread (worker/state-in-slices.ts) send it: a head with those arrays empty, then slices of items,
// each appended to the array at its path.

export type ArrayPath = readonly string[];

/** A copy of `value` down to its arrays longer than `longerThan`, which are left empty and listed (with their paths) in `arrays`. */
export function withoutLargeArrays(value: unknown, longerThan: number, arrays: Array<{ path: ArrayPath; items: readonly unknown[] }>, path: ArrayPath = []): unknown {
  if (Array.isArray(value)) {
    if (value.length <= longerThan) return value;
    arrays.push({ path, items: value });
    return [];
  }
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  // fromEntries defines own properties, even one named __proto__.
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withoutLargeArrays(child, longerThan, arrays, [...path, key])]));
}

/** The array at `path` inside `root`, following own keys only (a path must never reach a prototype); undefined when none. */
export function arrayAtPath(root: unknown, path: ArrayPath): unknown[] | undefined {
  let target: unknown = root;
  for (const key of path) {
    if (typeof target !== 'object' || target === null || Array.isArray(target) || !Object.hasOwn(target, key)) return undefined;
    target = (target as Record<string, unknown>)[key];
  }
  return Array.isArray(target) ? target : undefined;
}
