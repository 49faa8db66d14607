// The list query of every list endpoint: `filter` (ZitiQL), `sort`, `limit` and `offset` applied to an
// in-memory list, giving the data page and the `meta` of the list envelope. Pure: no I/O, no clock.
//
// The filter is parsed and compiled once per call. `sort by`, `skip` and `limit` clauses inside the
// filter apply only when the matching query parameter is missing or empty.
//
// A list costs what it returns where the source's indexes can tell which rows a filter may match (index-plan.ts):
// only those rows are tested. Either way the rows are visited once, counted for `totalCount` and only the page is
// kept (list-page.ts); the caller builds the API representation of the page alone.
import { EdgeError } from '../../edge/edge-error.ts';
import { fieldNames } from './field-catalogue.ts';
import type { FieldCatalogue } from './field-catalogue.ts';
import { compileFilter } from './filter-compiler.ts';
import type { Predicate } from './filter-compiler.ts';
import { FilterError } from './filter-error.ts';
import { parseFilter } from './filter-parser.ts';
import type { FilterQuery } from './filter-parser.ts';
import { DEFAULT_LIMIT, normalizeLimit, normalizeOffset, readLimit, readOffset } from './pagination.ts';
import { firstValue } from './query-values.ts';
import type { RawQueryValue } from './query-values.ts';
import { indexedCandidates } from './index-plan.ts';
import { pageOf, type Page } from './list-page.ts';
import { arraySource } from './list-source.ts';
import type { ListSource } from './list-source.ts';
import { parseSortParam, sortFieldProblem } from './sort.ts';
import type { SortKey } from './sort.ts';

export type { FieldCatalogue, FieldDef, FieldType } from './field-catalogue.ts';
export type { Predicate } from './filter-compiler.ts';
export type { RawQueryValue } from './query-values.ts';
export type { SortKey } from './sort.ts';
export type { ListIndexes, ListSource } from './list-source.ts';

export interface ListQueryParams {
  readonly filter?: RawQueryValue;
  readonly sort?: RawQueryValue;
  readonly limit?: RawQueryValue;
  readonly offset?: RawQueryValue;
}

export interface ListMeta {
  readonly pagination: { readonly limit: number; readonly offset: number; readonly totalCount: number };
  readonly filterableFields: string[];
}

export interface ListResult<T> {
  readonly data: T[];
  readonly meta: ListMeta;
}

export interface PreparedListQuery<T> {
  readonly predicate: Predicate<T>;
  readonly sort: readonly SortKey[];
  readonly limit: number;
  readonly offset: number;
  /** Filters, sorts and pages `items`; can be reused for several lists of the same entity type. */
  run(items: readonly T[]): ListResult<T>;
  /** The same over a source that may answer the filter from its indexes. */
  runOn(source: ListSource<T>): ListResult<T>;
}

function invalidFilter(reason: string, text: string): EdgeError {
  return new EdgeError('INVALID_FILTER', { field: 'filter', reason, value: text });
}

function parseFilterParam(text: string): FilterQuery {
  try {
    return parseFilter(text);
  } catch (error) {
    if (error instanceof FilterError) throw invalidFilter(error.message, text);
    throw error;
  }
}

/** Validates every query parameter and compiles the filter, throwing the matching EdgeError on bad input. */
export function prepareListQuery<T>(query: ListQueryParams, catalogue: FieldCatalogue<T>): PreparedListQuery<T> {
  const filterText = firstValue(query.filter) ?? '';
  const parsed: FilterQuery = filterText.trim() === '' ? {} : parseFilterParam(filterText);

  let predicate: Predicate<T>;
  try {
    predicate = compileFilter(parsed.where, catalogue);
  } catch (error) {
    if (error instanceof FilterError) throw invalidFilter(error.message, filterText);
    throw error;
  }

  for (const field of parsed.sort ?? []) {
    const problem = sortFieldProblem(field.field, catalogue);
    if (problem) throw invalidFilter(`${problem} (at column ${field.column})`, filterText);
  }

  const sort: readonly SortKey[] =
    parseSortParam(query.sort, catalogue) ?? (parsed.sort ?? []).map(({ field, direction }) => ({ field, direction }));

  const clauseLimit = parsed.limit === undefined ? undefined : parsed.limit === 'none' ? normalizeLimit(-1) : normalizeLimit(parsed.limit);
  const clauseOffset = parsed.skip === undefined ? undefined : normalizeOffset(parsed.skip);
  const limit = readLimit(query.limit) ?? clauseLimit ?? DEFAULT_LIMIT;
  const offset = readOffset(query.offset) ?? clauseOffset ?? 0;

  const filterableFields = fieldNames(catalogue);

  const runOn = (source: ListSource<T>): ListResult<T> => {
    const candidates = indexedCandidates(parsed.where, source.indexes);
    const each = candidates ? arraySource(candidates).each : (visit: (row: T) => void) => source.each(visit);
    // A sort on one field the source keeps in order, over rows no index narrowed: read them in that order and keep the
    // page as it passes, instead of ranking every match.
    const inOrder = !candidates && sort.length === 1 ? source.indexes?.ordered?.(sort[0]!.field, sort[0]!.direction === 'desc') : undefined;
    const page = inOrder
      ? !parsed.where && source.size !== undefined
        ? pageInOrder(inOrder, offset, limit, source.size)
        : pageOf(inOrder, { predicate, sort: [], offset, limit, catalogue })
      : pageOf(each, { predicate, sort, offset, limit, catalogue });
    return {
      data: page.data,
      meta: { pagination: { limit, offset, totalCount: page.totalCount }, filterableFields: filterableFields.slice() },
    };
  };
  return { predicate, sort, limit, offset, run: (items) => runOn(arraySource(items)), runOn };
}

/** With no filter every row matches: the page is read from its position in the order and stops there. */
function pageInOrder<T>(inOrder: (visit: (row: T) => boolean | void) => void, offset: number, limit: number, size: number): Page<T> {
  const data: T[] = [];
  let position = 0;
  inOrder((row) => {
    if (position >= offset + limit) return false;
    if (position++ >= offset) data.push(row);
  });
  return { data, totalCount: size };
}

/**
 * Filters, sorts and pages `items` by the raw URL query values. `totalCount` counts every match before
 * paging. Throws EdgeError INVALID_FILTER, INVALID_SORT_IDENTIFIER or INVALID_PAGINATION on bad input.
 */
export function runListQuery<T>(items: readonly T[] | ListSource<T>, query: ListQueryParams, catalogue: FieldCatalogue<T>): ListResult<T> {
  const prepared = prepareListQuery(query, catalogue);
  return Array.isArray(items) ? prepared.run(items) : prepared.runOn(items as ListSource<T>);
}
