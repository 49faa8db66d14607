// Where a list query reads its rows: every row in the list's default order, and, for a table, the indexes that
// answer `field = value` without visiting every row (index-plan.ts decides when to ask them).
import type { Scalar } from './field-catalogue.ts';

export interface ListIndexes<T> {
  /**
   * The rows whose `field` equals `value` (for a list field: that hold `value` among its strings), or undefined
   * when no index answers for that field. In any order. May hold rows the filter then rejects, never miss a row.
   */
  lookup(field: string, value: Scalar): readonly T[] | undefined;
  /** How many rows lookup() would give, without listing them; undefined when no index answers for that field. */
  count(field: string, value: Scalar): number | undefined;
  /** Puts looked-up rows in the list's default order (what each() visits them in). */
  inListOrder(rows: T[]): T[];
  /**
   * The rows whose string `field` may match `text` by `match` (filter-compiler.ts's meaning), in any order; may hold
   * rows the filter then rejects, never misses one. Undefined when no index answers for the field or text, or when so
   * many rows match that visiting every row is cheaper.
   */
  search?(field: string, match: TextMatchOperator, text: string): readonly T[] | undefined;
  /** Visits every row in the order a sort by `field` alone gives (sort.ts: the key, then id), or undefined when no
   * index keeps that order. */
  ordered?(field: string, descending: boolean): ((visit: (row: T) => boolean | void) => void) | undefined;
}

export type TextMatchOperator = 'contains' | 'icontains' | 'startswith' | 'endswith';

export interface ListSource<T> {
  /** Every row in the list's default order; `visit` returns false to stop. The rows do not change during a visit. */
  each(visit: (row: T) => boolean | void): void;
  readonly indexes?: ListIndexes<T>;
  /** How many rows each() visits, when known without visiting them. */
  readonly size?: number;
}

/** A list held in an array (already in its default order), with no indexes: every filter visits every item. */
export function arraySource<T>(items: readonly T[]): ListSource<T> {
  return {
    each(visit) {
      for (let i = 0; i < items.length; i++) if (visit(items[i]!) === false) return;
    },
  };
}
