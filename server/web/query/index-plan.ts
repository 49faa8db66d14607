// Which rows a filter can possibly match, read from the list's indexes instead of visiting every row: a superset of
// the matches (the compiled filter still runs over each), or undefined when the indexes cannot narrow it and the
// whole list is scanned. Pure.
//
// What narrows: `f = "v"` and `f in [...]` on an indexed field, `anyOf(f)` / `allOf(f)` with `=` or `in` on an indexed
// list field (allOf holds only for rows that hold the value too), `false`, an `and` (its smallest narrowing
// operand), an `or` whose every operand narrows (their union), and `contains` / `icontains` / `startswith` /
// `endswith` on a field the source can search (ListIndexes.search). Everything else (`!=`, the negated text
// matches, ranges, `not`, `noneOf`, `count`, `isEmpty`, `null`) leaves the scan.
import type { FilterExpr, Literal, Operand } from './filter-parser.ts';
import type { ListIndexes, TextMatchOperator } from './list-source.ts';

const TEXT_MATCHES: ReadonlySet<string> = new Set<TextMatchOperator>(['contains', 'icontains', 'startswith', 'endswith']);

interface Narrowing<T> {
  /** How many rows it gives at most (with repeats across an `or`'s operands). */
  readonly size: number;
  rows(): readonly T[];
}

/** The rows `expr` can match in the list's default order, or undefined when only a full scan can tell. */
export function indexedCandidates<T>(expr: FilterExpr | undefined, indexes: ListIndexes<T> | undefined): T[] | undefined {
  if (!expr || !indexes) return undefined;
  const narrowing = narrow(expr, indexes);
  if (!narrowing) return undefined;
  // An `or` may name one row from several operands: each row once.
  const unique = [...new Set(narrowing.rows())];
  return indexes.inListOrder(unique);
}

function narrow<T>(expr: FilterExpr, indexes: ListIndexes<T>): Narrowing<T> | undefined {
  switch (expr.type) {
    case 'const':
      return expr.value ? undefined : { size: 0, rows: () => [] };
    case 'and': {
      let best: Narrowing<T> | undefined;
      for (const operand of expr.operands) {
        const candidate = narrow(operand, indexes);
        if (candidate && (!best || candidate.size < best.size)) best = candidate;
      }
      return best;
    }
    case 'or': {
      const parts: Narrowing<T>[] = [];
      for (const operand of expr.operands) {
        const part = narrow(operand, indexes);
        if (!part) return undefined;
        parts.push(part);
      }
      return union(parts);
    }
    case 'compare':
      if (expr.negated) return undefined;
      if (expr.op === '=') return lookupAll(expr.lhs, [expr.value], indexes);
      if (TEXT_MATCHES.has(expr.op)) return searchText(expr.lhs, expr.op as TextMatchOperator, expr.value, indexes);
      return undefined;
    case 'in':
      if (expr.negated) return undefined;
      return lookupAll(expr.lhs, expr.values, indexes);
    default:
      return undefined;
  }
}

/** The rows holding any of `values` in the operand's field, when an index answers for it. */
function lookupAll<T>(lhs: Operand, values: readonly Literal[], indexes: ListIndexes<T>): Narrowing<T> | undefined {
  // A list field narrows only where each matching row must hold the value: anyOf and allOf, not noneOf or count.
  if (lhs.kind === 'set' && lhs.fn !== 'anyOf' && lhs.fn !== 'allOf') return undefined;
  const parts: Narrowing<T>[] = [];
  for (const literal of values) {
    if (literal.kind === 'null') return undefined;
    const value = literal.value;
    const size = indexes.count(lhs.field, value);
    if (size === undefined) return undefined;
    parts.push({ size, rows: () => indexes.lookup(lhs.field, value) ?? [] });
  }
  return union(parts);
}

/** The rows whose field may match a text operator, when the source can search that field (searched now: its size is
 * the number of hits). */
function searchText<T>(lhs: Operand, match: TextMatchOperator, literal: Literal, indexes: ListIndexes<T>): Narrowing<T> | undefined {
  if (lhs.kind !== 'field' || literal.kind !== 'string' || !indexes.search) return undefined;
  const rows = indexes.search(lhs.field, match, literal.value);
  return rows ? { size: rows.length, rows: () => rows } : undefined;
}

function union<T>(parts: readonly Narrowing<T>[]): Narrowing<T> {
  if (parts.length === 1) return parts[0]!;
  return {
    size: parts.reduce((sum, part) => sum + part.size, 0),
    rows: () => parts.flatMap((part) => part.rows()),
  };
}
