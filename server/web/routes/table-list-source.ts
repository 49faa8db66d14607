// A model table as a list source: its rows in id order without a copy, and the table's indexes for the fields a
// catalogue names, so `name = "x"` or `anyOf(roleAttributes) = "x"` reads the matching rows instead of every row.
// Each field maps to an index whose key is exactly what the catalogue's getter reads for that field (a mismatch
// would hide rows; list-query-equivalence.test.ts compares every mapped field against a full scan).
import type { Scalar } from '../query/field-catalogue.ts';
import type { ListIndexes, ListSource } from '../query/list-source.ts';
import type { EntityTable, Row } from '../../store/entity-table.ts';

/** How a catalogue field is found in the table: by id, a unique index, a multi index or a multi-value index. */
export type FieldIndex = { readonly kind: 'id' } | { readonly kind: 'unique' | 'multi' | 'multiValue'; readonly index: string };

export type FieldIndexes = Readonly<Record<string, FieldIndex>>;

export function tableListSource<T extends Row>(table: EntityTable<T>, fields: FieldIndexes): ListSource<T> {
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
  };
  return { each: (visit) => table.eachRow(visit), indexes };
}
