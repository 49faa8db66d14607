// One page of a filtered list and how many rows matched, in one pass over the rows, holding only what the page needs:
// without a sort, the matches whose position falls in the page; with one, the best `offset + limit` matches so far
// in a bounded heap. Gives exactly what filtering every row, sorting every match (sort.ts's order: the keys, then
// id, then list order) and slicing would. Pure.
import type { FieldCatalogue } from './field-catalogue.ts';
import type { Predicate } from './filter-compiler.ts';
import { sortComparison } from './sort.ts';
import type { SortKey } from './sort.ts';

export interface Page<T> {
  readonly data: T[];
  readonly totalCount: number;
}

export interface PageRequest<T> {
  readonly predicate: Predicate<T>;
  readonly sort: readonly SortKey[];
  readonly offset: number;
  readonly limit: number;
  readonly catalogue: FieldCatalogue<T>;
}

/** `each` visits the candidate rows in the list's default order. */
export function pageOf<T>(each: (visit: (row: T) => void) => void, request: PageRequest<T>): Page<T> {
  const { predicate, sort, offset, limit } = request;
  const end = offset + limit;
  if (sort.length === 0) {
    const data: T[] = [];
    let count = 0;
    each((row) => {
      if (!predicate(row)) return;
      if (count >= offset && count < end) data.push(row);
      count++;
    });
    return { data, totalCount: count };
  }

  const { keysOf, compare } = sortComparison(sort, request.catalogue);
  const best = new BoundedHeap<Ranked<T>>(end, (a, b) => compare(a.keys, a.id, a.position, b.keys, b.id, b.position));
  let count = 0;
  each((row) => {
    if (!predicate(row)) return;
    const position = count++;
    if (end === 0) return;
    const { keys, id } = keysOf(row);
    const worst = best.full ? best.top : undefined;
    // A match that would sort after the worst of a full heap cannot reach the page.
    if (worst && compare(keys, id, position, worst.keys, worst.id, worst.position) >= 0) return;
    best.push({ row, keys, id, position });
  });
  const ranked = best.drain().sort((a, b) => compare(a.keys, a.id, a.position, b.keys, b.id, b.position));
  return { data: ranked.slice(offset).map((entry) => entry.row), totalCount: count };
}

interface Ranked<T> {
  readonly row: T;
  readonly keys: readonly unknown[];
  readonly id: string;
  readonly position: number;
}

/** At most `capacity` items; the top is the one that sorts last, so a better item replaces it. */
class BoundedHeap<E> {
  private readonly items: E[] = [];

  constructor(
    private readonly capacity: number,
    /** < 0 when a sorts before b. */
    private readonly order: (a: E, b: E) => number,
  ) {}

  get full(): boolean {
    return this.items.length >= this.capacity;
  }

  get top(): E | undefined {
    return this.items[0];
  }

  push(item: E): void {
    const { items } = this;
    if (items.length < this.capacity) {
      items.push(item);
      this.up(items.length - 1);
      return;
    }
    items[0] = item;
    this.down(0);
  }

  /** Every item, in no order; the heap is left empty. */
  drain(): E[] {
    return this.items.splice(0);
  }

  // A max-heap by `order`: a parent sorts after (or with) its children.
  private up(at: number): void {
    const { items } = this;
    const item = items[at]!;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (this.order(items[parent]!, item) >= 0) break;
      items[at] = items[parent]!;
      at = parent;
    }
    items[at] = item;
  }

  private down(at: number): void {
    const { items } = this;
    const item = items[at]!;
    const n = items.length;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.order(items[right]!, items[left]!) > 0 ? right : left;
      if (this.order(items[child]!, item) <= 0) break;
      items[at] = items[child]!;
      at = child;
    }
    items[at] = item;
  }
}
