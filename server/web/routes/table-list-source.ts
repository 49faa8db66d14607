// A model table as a list source: its rows in id order without a copy, and the table's indexes for the fields a
// catalogue names, so `name = "x"` or `anyOf(roleAttributes) = "x"` reads the matching rows instead of every row.
// Each field maps to an index whose key is exactly what the catalogue's getter reads for that field (a mismatch
// would hide rows; table-list-source.test.ts compares every mapped field against a full scan). A string field marked
// `text` also answers `contains`, `icontains`, `startswith` and `endswith`, and sorts on it alone, from the table's
// text indexes (server/store/text-field-indexes.ts), read through the catalogue's getter for that field. Given a
// scheduler, those indexes are built in the background a slice at a time, and until one is built the list is
// answered as if it did not exist (a scan, the bounded heap): the same answer, at the old cost, never a build inside
// a request.
import { findField, readScalar } from '../query/field-catalogue.ts';
import type { FieldCatalogue, Scalar } from '../query/field-catalogue.ts';
import type { ListIndexes, ListSource } from '../query/list-source.ts';
import type { EntityTable, Row } from '../../store/entity-table.ts';
import { textFieldIndexes, type TextFieldIndexes } from '../../store/text-field-indexes.ts';
import type { SliceScheduler } from '../../store/slice-scheduler.ts';

/** How a catalogue field is found in the table: by id, a unique index, a multi index or a multi-value index; `text`
 * adds the text indexes (substring searches and the field's order). */
export type FieldIndex = ({ readonly kind: 'id' } | { readonly kind: 'unique' | 'multi' | 'multiValue'; readonly index: string }) & { readonly text?: true };

/** A text search giving more hits than this share of the table is left to a scan: sorting that many hits into id
 * order costs more than visiting every row. */
const MAX_SEARCH_SHARE = 1 / 16;

export type FieldIndexes = Readonly<Record<string, FieldIndex>>;

/** Thrown by a source made with `waitForBuilds` before it visits every row for want of an index still being built: the
 * caller waits until `ready()` and asks again, instead of a visit that holds the controller for seconds at 1M rows. */
export class IndexBuilding extends Error {
  constructor(readonly ready: () => boolean) {
    super('a list index is still being built');
  }
}

export interface TableListOptions {
  /** Builds the text indexes and orders in the background through this (else the first read builds them). */
  readonly schedule?: SliceScheduler;
  /** Throw IndexBuilding rather than visit every row when an index the list would read is not built yet. */
  readonly waitForBuilds?: boolean;
}

export function tableListSource<T extends Row>(table: EntityTable<T>, fields: FieldIndexes, catalogue?: FieldCatalogue<T>, options: TableListOptions = {}): ListSource<T> {
  const { schedule } = options;
  /** The indexes asked for while still being built. */
  const building: (() => boolean)[] = [];
  const builtOrNoted = (index: { ready(): boolean }) => {
    if (index.ready()) return true;
    building.push(() => index.ready());
    return false;
  };
  const textOf = (field: string): TextFieldIndexes<T> | undefined => {
    const index = Object.prototype.hasOwnProperty.call(fields, field) ? fields[field] : undefined;
    const def = index?.text && catalogue ? findField(catalogue, field) : undefined;
    if (!def || def.type !== 'string') return undefined;
    const get = def.get as (row: T) => unknown;
    return textFieldIndexes(table, field, (row) => readScalar('string', get(row)) as string | undefined, schedule);
  };
  const find = (field: string, value: Scalar): readonly T[] | undefined => {
    const index = Object.prototype.hasOwnProperty.call(fields, field) ? fields[field] : undefined;
    // Every index is keyed by strings: another literal leaves the filter to a scan.
    if (!index || typeof value !== 'string') return undefined;
    switch (index.kind) {
      case 'id': {
        const row = table.get(value);
        return row ? [row] : [];
      }
      case 'unique': {
        const row = table.findUnique(index.index, value);
        return row ? [row] : [];
      }
      case 'multi':
        return table.findMany(index.index, value);
      case 'multiValue':
        return table.findHolding(index.index, value);
    }
  };
  const indexes: ListIndexes<T> = {
    lookup: find,
    count(field, value) {
      const index = Object.prototype.hasOwnProperty.call(fields, field) ? fields[field] : undefined;
      if (index?.kind === 'multi' && typeof value === 'string') return table.countMany(index.index, value);
      if (index?.kind === 'multiValue' && typeof value === 'string') return table.countHolding(index.index, value);
      return find(field, value)?.length;
    },
    inListOrder: (rows) => rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    search(field, match, text) {
      const indexes = textOf(field);
      if (!indexes) return undefined;
      const maxHits = Math.max(1000, Math.floor(table.size * MAX_SEARCH_SHARE));
      // `icontains` of one or two characters has no trigram to narrow by: it reads the lowercased copy.
      if (match === 'icontains' && !indexes.search.answersIcontains(text)) {
        if (!builtOrNoted(indexes.lowercaseSearch)) return undefined;
        return indexes.lowercaseSearch.search('contains', text.toLowerCase(), maxHits);
      }
      if (!builtOrNoted(indexes.search)) return undefined;
      return indexes.search.search(match, text, maxHits);
    },
    ordered(field, descending) {
      const sorted = textOf(field)?.sorted;
      return sorted && builtOrNoted(sorted) ? (visit) => sorted.each(descending, visit) : undefined;
    },
  };
  return {
    each(visit) {
      if (options.waitForBuilds && building.length > 0) throw new IndexBuilding(() => building.every((ready) => ready()));
      table.eachRow(visit);
    },
    indexes,
    get size() {
      return table.size;
    },
  };
}
