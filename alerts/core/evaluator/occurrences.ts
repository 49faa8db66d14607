// Counting real occurrences when two sources report the same thing: the controller's log line and its event for
// one peer disconnect, or one controller's `leadership.lost` and another's `leadership.gained` for one handover.
// A report joins the closest earlier-or-later occurrence within the pair window that it may pair with; otherwise it
// is a new occurrence. Lists stay sorted by time and are pruned to the counting window by the caller.

export interface Occurrence {
  readonly at: number;
  /** Who reported it: `log`/`event`, or `gained:<id>`/`lost:<id>`. */
  readonly sources: string[];
}

export type PairRule = (sources: readonly string[], source: string) => boolean;

/** Adds a report; true when it is a new occurrence (false when it paired with one already counted). */
export function report(list: Occurrence[], at: number, source: string, pairWindow: number, mayPair: PairRule): boolean {
  let best: Occurrence | undefined;
  for (const occurrence of list) {
    const distance = Math.abs(occurrence.at - at);
    if (distance > pairWindow || !mayPair(occurrence.sources, source)) continue;
    if (best === undefined || distance < Math.abs(best.at - at)) best = occurrence;
  }
  if (best) {
    best.sources.push(source);
    return false;
  }
  let index = list.length;
  while (index > 0 && list[index - 1]!.at > at) index--;
  list.splice(index, 0, { at, sources: [source] });
  return true;
}

/** Occurrences at or after `from`. */
export function countSince(list: readonly Occurrence[], from: number): number {
  let count = 0;
  for (const occurrence of list) if (occurrence.at >= from) count++;
  return count;
}

/** Drops occurrences before `before`, in place. */
export function prune(list: Occurrence[], before: number): void {
  let drop = 0;
  while (drop < list.length && list[drop]!.at < before) drop++;
  if (drop > 0) list.splice(0, drop);
}

/** A log line pairs with an event and the other way round; two of one kind are two occurrences. */
export const pairAcrossSources: PairRule = (sources, source) => !sources.includes(source);

/** A gain pairs with another controller's loss that has no gain yet, and the other way round. */
export const pairHandover: PairRule = (sources, source) => {
  const [kind, controller] = splitSource(source);
  const other = kind === 'gained' ? 'lost' : 'gained';
  if (sources.some((existing) => splitSource(existing)[0] === kind)) return false;
  return sources.some((existing) => {
    const [existingKind, existingController] = splitSource(existing);
    return existingKind === other && existingController !== controller;
  });
};

function splitSource(source: string): [string, string] {
  const colon = source.indexOf(':');
  return colon === -1 ? [source, ''] : [source.slice(0, colon), source.slice(colon + 1)];
}
