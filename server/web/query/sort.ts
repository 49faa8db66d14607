// Parses the `sort` query parameter (`name`, `name asc`, `createdAt desc,name`) and sorts a list by it.
// Keys are read once per entity, not once per comparison. Equal keys fall back to `id`, then to input order.
import { EdgeError } from '../../edge/edge-error.ts';
import { fieldNames, findField, readScalar } from './field-catalogue.ts';
import type { FieldCatalogue, Scalar, ScalarFieldType } from './field-catalogue.ts';
import type { SortDirection } from './filter-parser.ts';
import type { RawQueryValue } from './query-values.ts';

export type { SortDirection } from './filter-parser.ts';

export interface SortKey {
  readonly field: string;
  readonly direction: SortDirection;
}

/** Fields a list can be sorted by: every scalar field of the catalogue. */
export function sortableFields<T>(catalogue: FieldCatalogue<T>): string[] {
  return fieldNames(catalogue).filter((name) => catalogue[name]!.type !== 'string[]');
}

/** Why `field` cannot be sorted on, or undefined when it can. */
export function sortFieldProblem<T>(field: string, catalogue: FieldCatalogue<T>): string | undefined {
  const def = findField(catalogue, field);
  const allowed = `expected one of: ${sortableFields(catalogue).join(', ')}`;
  if (!def) return `unknown sort field '${field}'; ${allowed}`;
  if (def.type === 'string[]') return `field '${field}' is a list and cannot be sorted on; ${allowed}`;
  return undefined;
}

const DIRECTION = /^(asc|desc)$/i;

/**
 * Reads the `sort` parameter. Repeated parameters are joined as if comma-separated.
 * Returns undefined when it is missing or blank, so a `sort by` clause in the filter can apply.
 */
export function parseSortParam<T>(raw: RawQueryValue, catalogue: FieldCatalogue<T>): SortKey[] | undefined {
  const text = typeof raw === 'string' || raw === undefined ? raw : raw.join(',');
  if (text === undefined || text.trim() === '') return undefined;

  const fail = (reason: string): never => {
    throw new EdgeError('INVALID_SORT_IDENTIFIER', { field: 'sort', reason, value: text });
  };

  return text.split(',').map((part, index) => {
    const words = part.trim().split(/\s+/).filter((w) => w !== '');
    const [field, direction, extra] = words;
    if (field === undefined) return fail(`expected a field name in sort entry ${index + 1}`);
    if (direction !== undefined && !DIRECTION.test(direction)) {
      return fail(`expected 'asc' or 'desc' after '${field}', found '${direction}'`);
    }
    if (extra !== undefined) return fail(`expected ',' or the end of the sort after '${direction}', found '${extra}'`);
    const problem = sortFieldProblem(field, catalogue);
    if (problem) return fail(problem);
    return { field, direction: (direction?.toLowerCase() ?? 'asc') as SortDirection };
  });
}

// Missing values sort after present ones in either direction, so `desc` does not lead with blanks.
function compareValues(a: Scalar | undefined, b: Scalar | undefined, descending: boolean): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const order = a < b ? -1 : 1;
  return descending ? -order : order;
}

function idReader<T>(catalogue: FieldCatalogue<T>): (entity: T) => string {
  const def = findField(catalogue, 'id');
  if (def && def.type !== 'string[]') {
    const type = def.type;
    const get = def.get as (entity: T) => unknown;
    return (entity) => String(readScalar(type, get(entity)) ?? '');
  }
  return (entity) => {
    const id = (entity as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : '';
  };
}

export interface SortComparison<T> {
  /** The sort keys and the id of one row, read once. */
  keysOf(row: T): { readonly keys: readonly (Scalar | undefined)[]; readonly id: string };
  /** sortItems' order: the keys, then the id, then the position in the list (< 0 when a sorts first). */
  compare(aKeys: readonly unknown[], aId: string, aPosition: number, bKeys: readonly unknown[], bId: string, bPosition: number): number;
}

/** The order sortItems sorts in, for a caller that keeps only some rows (list-page.ts). Keys must be validated. */
export function sortComparison<T>(keys: readonly SortKey[], catalogue: FieldCatalogue<T>): SortComparison<T> {
  const readers = keyReaders(keys, catalogue);
  const descending = keys.map((key) => key.direction === 'desc');
  const idOf = idReader(catalogue);
  return {
    keysOf: (row) => ({ keys: readers.map((read) => read(row)), id: idOf(row) }),
    compare(aKeys, aId, aPosition, bKeys, bId, bPosition) {
      for (let i = 0; i < descending.length; i++) {
        const order = compareValues(aKeys[i] as Scalar | undefined, bKeys[i] as Scalar | undefined, descending[i]!);
        if (order !== 0) return order;
      }
      if (aId !== bId) return aId < bId ? -1 : 1;
      return aPosition - bPosition;
    },
  };
}

function keyReaders<T>(keys: readonly SortKey[], catalogue: FieldCatalogue<T>): ((entity: T) => Scalar | undefined)[] {
  return keys.map((key) => {
    const def = findField(catalogue, key.field);
    if (!def || def.type === 'string[]') throw new Error(`sort key '${key.field}' was not validated against the catalogue`);
    const type: ScalarFieldType = def.type;
    const get = def.get as (entity: T) => unknown;
    return (entity: T) => readScalar(type, get(entity));
  });
}

interface Row<T> {
  readonly item: T;
  readonly index: number;
  readonly keys: readonly (Scalar | undefined)[];
  readonly id: string;
}

/**
 * Returns a sorted copy. Keys must already be validated (parseSortParam or sortFieldProblem).
 * With no keys the input order is kept: the caller's store order is the default order.
 */
export function sortItems<T>(items: readonly T[], keys: readonly SortKey[], catalogue: FieldCatalogue<T>): T[] {
  if (keys.length === 0) return items.slice();

  const readers = keys.map((key) => {
    const def = findField(catalogue, key.field);
    if (!def || def.type === 'string[]') throw new Error(`sort key '${key.field}' was not validated against the catalogue`);
    const type: ScalarFieldType = def.type;
    const get = def.get as (entity: T) => unknown;
    return (entity: T) => readScalar(type, get(entity));
  });
  const descending = keys.map((key) => key.direction === 'desc');
  const idOf = idReader(catalogue);

  const rows: Row<T>[] = items.map((item, index) => ({ item, index, keys: readers.map((read) => read(item)), id: idOf(item) }));
  rows.sort((a, b) => {
    for (let i = 0; i < readers.length; i++) {
      const order = compareValues(a.keys[i], b.keys[i], descending[i]!);
      if (order !== 0) return order;
    }
    if (a.id !== b.id) return a.id < b.id ? -1 : 1;
    return a.index - b.index;
  });
  return rows.map((row) => row.item);
}
