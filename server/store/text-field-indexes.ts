// The indexes kept beside a table for one string field (a name), made the first time a list asks and kept for the
// table's life: substring searches over the texts as they are (`contains`, `startswith`, `endswith`, and `icontains`
// of three or more characters, through its trigram postings) and lowercased (`icontains` of one or two characters:
// built only once such a search asks), and the rows in the field's order. Each builds its contents only when first read, so a field never
// searched or sorted on costs nothing but an observer call per change. Given a scheduler, each is built in the
// background a slice at a time, and answers (ready()) only once built; the first caller's scheduler is kept.
import type { EntityTable, Row } from './entity-table.ts';
import type { SliceScheduler } from './slice-scheduler.ts';
import { SortedRows } from './sorted-rows.ts';
import { SubstringSearch } from './substring-search.ts';

export interface TextFieldIndexes<T extends Row> {
  /** Texts as the field holds them. */
  readonly search: SubstringSearch<T>;
  /** Texts lowercased each on its own, as `icontains` compares them, for the strings `search` cannot narrow. */
  readonly lowercaseSearch: SubstringSearch<T>;
  /** The rows in the field's order (see SortedRows). */
  readonly sorted: SortedRows<T>;
}

const made = new WeakMap<EntityTable<Row>, Map<string, TextFieldIndexes<Row>>>();

/** The text indexes of `field` on `table`, made on first use. `key` must read the field exactly as lists do. */
export function textFieldIndexes<T extends Row>(table: EntityTable<T>, field: string, key: (row: T) => string | undefined, schedule?: SliceScheduler): TextFieldIndexes<T> {
  let fields = made.get(table as unknown as EntityTable<Row>);
  if (!fields) made.set(table as unknown as EntityTable<Row>, (fields = new Map()));
  const existing = fields.get(field);
  if (existing) return existing as unknown as TextFieldIndexes<T>;

  const isCurrent = (row: T) => table.get(row.id) === row;
  const eachRow = (visit: (row: T) => void) => table.eachRow((row) => void visit(row));
  const lowercase = (row: T) => key(row)?.toLowerCase();
  const indexes: TextFieldIndexes<T> = {
    search: new SubstringSearch({ key, isCurrent, eachRow, ...(schedule ? { schedule } : {}) }),
    lowercaseSearch: new SubstringSearch({ key: lowercase, isCurrent, eachRow, trigrams: false, ...(schedule ? { schedule } : {}) }),
    sorted: new SortedRows({ key, eachRow, ...(schedule ? { schedule } : {}) }),
  };
  table.observe(indexes.search);
  table.observe(indexes.lowercaseSearch);
  table.observe(indexes.sorted);
  fields.set(field, indexes as unknown as TextFieldIndexes<Row>);
  return indexes;
}
