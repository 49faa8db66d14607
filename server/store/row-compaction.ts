// Makes a row cost less memory before a table keeps it, without changing what it says: its values are replaced, in
// place, by equal ones that other rows already hold. At a million identities the row objects are most of the model
// (bench/RESULTS.md, "Controller memory"), and much of each row repeats: the same role attribute lists on
// thousands of identities, `updatedAt` equal to `createdAt` until the first update (two strings once read back from
// JSON), an empty `tags` object on nearly every row.
// - A list of short strings (role attributes, config ids) becomes one frozen list shared by every row that holds
//   the same strings in the same order, from a pool of at most `maxLists` lists per table (a list not in a full
//   pool is kept as it came: memory stays bounded whatever the rows hold).
// - An empty plain object becomes one frozen empty object.
// - A string equal to an earlier field's string in the same row becomes that string.
// In place, because the row object is usually shared already (a leader's raft log entry holds the same command
// object until a snapshot compacts the log): a copy would hold two rows until then. Rows are immutable by contract
// (every field is readonly), so a shared frozen value is never written through; a frozen row is left as it is.

/** Lists longer than this, holding a string longer than maxPooledString, or longer than maxPooledText in all, are
 * left as they are: rare and unlikely to repeat (an MFA's recovery code hashes, 20 of 64 characters, are unique), and
 * the pool's key for each would be one more copy of its text. */
const maxPooledListLength = 32;
const maxPooledString = 256;
const maxPooledText = 256;
const separator = '\u0000';

const emptyObject: Readonly<Record<string, never>> = Object.freeze({});
const emptyList: readonly string[] = Object.freeze([]);

export class RowCompactor {
  private readonly lists = new Map<string, readonly string[]>();
  /** Values replaced so far, by kind (what the bench's heap figures show as bytes). */
  readonly replaced = { strings: 0, lists: 0, objects: 0 };

  constructor(private readonly maxLists = 50_000) {
    if (!Number.isInteger(maxLists) || maxLists < 0) throw new Error(`row compactor: maxLists ${maxLists} must be a whole number`);
  }

  /** Distinct lists held in the pool (at most maxLists). */
  get pooledLists(): number {
    return this.lists.size;
  }

  /** Replaces the row's values by equal shared ones; answers the same row. */
  compact<T extends object>(row: T): T {
    if (Object.isFrozen(row)) return row;
    const fields = row as Record<string, unknown>;
    let strings: string[] | undefined;
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (typeof value === 'string') {
        if (value.length > maxPooledString) continue;
        const same = strings?.find((earlier) => earlier === value);
        if (same !== undefined) {
          fields[key] = same;
          this.replaced.strings++;
        } else (strings ??= []).push(value);
      } else if (Array.isArray(value)) {
        const shared = this.sharedList(value);
        if (shared !== value) {
          fields[key] = shared;
          this.replaced.lists++;
        }
      } else if (value !== null && typeof value === 'object' && value !== emptyObject && isEmptyPlainObject(value)) {
        fields[key] = emptyObject;
        this.replaced.objects++;
      }
    }
    return row;
  }

  private sharedList(list: readonly unknown[]): readonly unknown[] {
    if (list.length === 0) return emptyList;
    if (list.length > maxPooledListLength || Object.isFrozen(list)) return list;
    // The pool's key joins the strings with a separator, so a string holding it could pass for two: left alone.
    for (const item of list) if (typeof item !== 'string' || item.length > maxPooledString || item.includes(separator)) return list;
    let text = 0;
    for (const item of list as readonly string[]) text += item.length + 1;
    if (text > maxPooledText) return list;
    const key = list.length === 1 ? (list[0] as string) : (list as readonly string[]).join(separator);
    const pooled = this.lists.get(key);
    if (pooled !== undefined) return pooled;
    if (this.lists.size >= this.maxLists) return list;
    const frozen = Object.freeze([...(list as readonly string[])]);
    this.lists.set(key, frozen);
    return frozen;
  }
}

function isEmptyPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}
