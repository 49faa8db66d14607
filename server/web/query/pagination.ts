// Reads `limit` and `offset` from a URL query and applies the controller's bounds.
// One deliberate difference from OpenZiti: there `limit=-1` means "no limit"; here it is capped at MAX_LIMIT.
import { EdgeError } from '../../edge/edge-error.ts';
import { firstValue } from './query-values.ts';
import type { RawQueryValue } from './query-values.ts';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 500;
export const MAX_OFFSET = 100_000;

export interface Pagination {
  readonly limit: number;
  readonly offset: number;
}

/** 0 and anything below -1 fall back to the default; -1 ("unlimited") and anything larger are capped. */
export function normalizeLimit(limit: number): number {
  if (limit === -1) return MAX_LIMIT;
  if (limit <= 0) return DEFAULT_LIMIT;
  return Math.min(limit, MAX_LIMIT);
}

export function normalizeOffset(offset: number): number {
  return Math.min(Math.max(offset, 0), MAX_OFFSET);
}

const INTEGER = /^[+-]?\d+$/;

function readInteger(field: 'limit' | 'offset', raw: RawQueryValue): number | undefined {
  const value = firstValue(raw);
  if (value === undefined || value === '') return undefined;
  if (!INTEGER.test(value)) {
    throw new EdgeError('INVALID_PAGINATION', { field, reason: `expected an integer for ${field}, found '${value}'`, value });
  }
  return Number(value);
}

/** The bounded limit, or undefined when the parameter is missing or empty. Throws on a non-integer. */
export function readLimit(raw: RawQueryValue): number | undefined {
  const limit = readInteger('limit', raw);
  return limit === undefined ? undefined : normalizeLimit(limit);
}

/** The bounded offset, or undefined when the parameter is missing or empty. Throws on a non-integer. */
export function readOffset(raw: RawQueryValue): number | undefined {
  const offset = readInteger('offset', raw);
  return offset === undefined ? undefined : normalizeOffset(offset);
}

export function parsePagination(query: { readonly limit?: RawQueryValue; readonly offset?: RawQueryValue }): Pagination {
  return { limit: readLimit(query.limit) ?? DEFAULT_LIMIT, offset: readOffset(query.offset) ?? 0 };
}
