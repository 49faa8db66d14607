// The rows whose text (a name) contains, starts with or ends with a given string, found with indexOf over the texts
// joined into a few long strings instead of reading every row: at 1M identities a `name contains` list visited every
// row (1.2 s of CPU per request). Built from the rows the first time it is asked, then kept up to date by the table
// (TableObserver): a put appends the new text to a tail, and the entry of the replaced row stays behind as garbage,
// recognised because its row is no longer the table's current one. Once the garbage outgrows the live entries the
// whole structure is dropped and built again at the next search, so a table that is written and never searched
// holds at most about twice its texts. Entries with no text (a missing value) are not held: no search matches them.
//
// Layout: each sealed segment is SEPARATOR + text0 + SEPARATOR + text1 + ... + SEPARATOR, with the start of each
// text in an Int32Array and its row beside it; a hit is mapped to its entry by binary search over the starts. A
// search string holding the separator is not answered (the caller scans). Exact: every current row whose text matches
// is given, and no other (a row put again unchanged may be given twice).
// Each sealed segment also keeps trigram postings of its lowercased texts (trigram-postings.ts): a search string of
// three or more code units verifies only the entries holding its trigrams instead of running indexOf over the segment
// (at 1M names the indexOf scan was ~11 ms of CPU a search), and `icontains` is answered from the same structure,
// verifying each candidate's lowercased text. Shorter strings, and segments where all the string's trigrams are too
// common to keep postings, are searched as before.
// Given a scheduler (slice-scheduler.ts), the build never runs inside a search: the first search starts it in the
// background, appending a bounded slice of rows at a time from a copy of the rows taken when it starts, and answers
// undefined (the caller scans) until it is done. Puts made meanwhile are appended as they come, as after a build; a
// copied row they replace or delete is garbage like any other. (At 1M names the build held the event loop ~1.5 s.)
import type { Row, TableObserver } from './entity-table.ts';
import type { SliceScheduler } from './slice-scheduler.ts';
import { defaultSliceRows } from './slice-scheduler.ts';
import { buildTrigramPostings, candidateEntries, MAX_SEGMENT_ENTRIES, postingsBytes, searchTrigrams, type TrigramPostings } from './trigram-postings.ts';

export type TextMatch = 'contains' | 'startswith' | 'endswith';
/** What search() answers: the exact-case matches, and `icontains` (the texts lowercased, as filter-compiler.ts does)
 * when the structure keeps trigram postings and the string has three code units or more once lowercased. */
export type SearchMatch = TextMatch | 'icontains';

const SEPARATOR = '\u0000';
/** Texts per sealed segment: one string of ~100 KB to a few MB, cheap to join and to drop. */
const SEGMENT_ENTRIES = 4096;
/** Garbage tolerated before a drop, whatever the table's size. */
const MIN_GARBAGE = 4096;

interface Segment<T> {
  readonly text: string;
  /** starts[i]: where entry i's text begins; starts[n]: one past the final separator. */
  readonly starts: Int32Array;
  readonly rows: readonly T[];
  readonly postings: TrigramPostings | undefined;
}

export interface SubstringSearchOptions<T> {
  /** The text a row is found by (already folded, e.g. lowercased, if the search is case-insensitive), or undefined. */
  readonly key: (row: T) => string | undefined;
  /** Whether `row` is the table's current version of its id. */
  readonly isCurrent: (row: T) => boolean;
  /** Visits every current row (to build from). */
  readonly eachRow: (visit: (row: T) => void) => void;
  /** Texts per sealed segment (default 4096, at most 65,536). */
  readonly segmentEntries?: number;
  /** Keep trigram postings per segment (default true); a structure only ever asked for short strings needs none. */
  readonly trigrams?: boolean;
  /** Builds in the background, a slice at a time, when given; else the first search builds in one piece. */
  readonly schedule?: SliceScheduler;
  /** Rows a slice appends at most (default defaultSliceRows). */
  readonly sliceRows?: number;
}

export class SubstringSearch<T extends Row> implements TableObserver<T> {
  private built = false;
  private segments: Segment<T>[] = [];
  private tail: T[] = [];
  private tailKeys: string[] = [];
  private entries = 0;
  private garbage = 0;
  /** The background build under way: the copied rows and the next one to append. */
  private building: { readonly rows: readonly T[]; next: number } | undefined;
  /** The most rows one background slice appended (a test reads it). */
  rowsInLongestSlice = 0;

  private readonly segmentEntries: number;

  constructor(private readonly options: SubstringSearchOptions<T>) {
    this.segmentEntries = options.segmentEntries ?? SEGMENT_ENTRIES;
    if (!(this.segmentEntries >= 1 && this.segmentEntries <= MAX_SEGMENT_ENTRIES)) throw new Error(`segmentEntries must be 1 to ${MAX_SEGMENT_ENTRIES}`);
  }

  /** Entries held, live and garbage (0 until the first search). */
  get held(): number {
    return this.entries;
  }

  /** Characters held in sealed segments and the tail: what the structure costs beside its arrays. */
  get characters(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.text.length;
    for (const key of this.tailKeys) total += key.length + 1;
    return total;
  }

  /** Bytes held in trigram postings. */
  get postingsBytes(): number {
    let total = 0;
    for (const segment of this.segments) if (segment.postings) total += postingsBytes(segment.postings);
    return total;
  }

  /** Whether search() answers `icontains` for `text` (else the caller needs a lowercased copy, or a scan). */
  answersIcontains(text: string): boolean {
    return this.options.trigrams !== false && !text.includes(SEPARATOR) && searchTrigrams(true, text).length > 0;
  }

  changed(row: T | undefined, previous: T | undefined): void {
    if (!this.built && !this.building) return;
    if (previous && this.options.key(previous) !== undefined) this.garbage++;
    if (row) this.append(row);
    if (this.garbage > MIN_GARBAGE && this.garbage > this.entries - this.garbage) this.drop();
  }

  reset(): void {
    this.drop();
  }

  /**
   * The current rows whose text matches `text` as `match` asks, in no order, or undefined when this structure does
   * not answer (the string is empty or holds the separator; `icontains` it cannot narrow, see answersIcontains) or more
   * than `maxHits` rows match (a scan is cheaper then). For the exact-case matches `text` must already be folded as
   * the keys are; `icontains` lowercases both sides itself.
   */
  search(match: SearchMatch, text: string, maxHits: number): T[] | undefined {
    // Every row with a text holds the empty string: a scan gives them in order.
    if (text === '' || text.includes(SEPARATOR)) return undefined;
    const caseInsensitive = match === 'icontains';
    if (caseInsensitive && !this.answersIcontains(text)) return undefined;
    if (!this.ready()) return undefined;
    this.build();
    const trigrams = this.options.trigrams === false ? [] : searchTrigrams(caseInsensitive, text);
    const lower = caseInsensitive ? text.toLowerCase() : text;
    const test = caseInsensitive ? (key: string) => key.toLowerCase().includes(lower) : (key: string) => matches(match, key, text);
    const { isCurrent } = this.options;
    const hits: T[] = [];
    for (const segment of this.segments) {
      const candidates = segment.postings && trigrams.length > 0 ? candidateEntries(segment.postings, trigrams) : undefined;
      if (candidates) {
        const { starts, rows } = segment;
        for (let i = 0; i < candidates.length; i++) {
          const entry = candidates[i]!;
          if (!test(segment.text.slice(starts[entry]!, starts[entry + 1]! - 1)) || !isCurrent(rows[entry]!)) continue;
          hits.push(rows[entry]!);
          if (hits.length > maxHits) return undefined;
        }
      } else if (caseInsensitive) {
        // Every trigram common here: each text lowercased and checked.
        const { starts, rows } = segment;
        for (let entry = 0; entry < rows.length; entry++) {
          if (!test(segment.text.slice(starts[entry]!, starts[entry + 1]! - 1)) || !isCurrent(rows[entry]!)) continue;
          hits.push(rows[entry]!);
          if (hits.length > maxHits) return undefined;
        }
      } else if (!this.scanSegment(segment, match as TextMatch, text, hits, maxHits)) return undefined;
    }
    const { tail, tailKeys } = this;
    for (let i = 0; i < tail.length; i++) {
      if (test(tailKeys[i]!) && isCurrent(tail[i]!)) {
        hits.push(tail[i]!);
        if (hits.length > maxHits) return undefined;
      }
    }
    return hits;
  }

  /** Adds the current rows of `segment` whose text matches, found with indexOf over its joined text; false once more
   * than maxHits. */
  private scanSegment(segment: Segment<T>, match: TextMatch, text: string, hits: T[], maxHits: number): boolean {
    const { isCurrent } = this.options;
    const pattern = match === 'startswith' ? SEPARATOR + text : match === 'endswith' ? text + SEPARATOR : text;
    const { starts, rows } = segment;
    let from = 0;
    for (;;) {
      const at = segment.text.indexOf(pattern, from);
      if (at < 0) return true;
      // A startswith pattern begins at the separator before its entry.
      const entry = entryAt(starts, match === 'startswith' ? at + 1 : at);
      const row = rows[entry]!;
      // A text holding the separator can make a startswith or endswith pattern match inside it: confirm on the text.
      if (isCurrent(row) && (match === 'contains' || matches(match, this.options.key(row)!, text))) {
        hits.push(row);
        if (hits.length > maxHits) return false;
      }
      // The next entry's own hits begin at its separator at the earliest.
      from = Math.max(starts[entry + 1]! - 1, at + 1);
    }
  }

  /** Whether search() answers now without building. Without a scheduler, always (it builds in one piece); with one, a
   * missing index starts its background build and this answers false until it is done. */
  ready(): boolean {
    if (this.built || !this.options.schedule) return true;
    if (!this.building) this.startBuild();
    return false;
  }

  private startBuild(): void {
    const rows: T[] = [];
    // Pointers only: the key reads and the joins are the slices'.
    this.options.eachRow((row) => void rows.push(row));
    const build = { rows, next: 0 };
    this.building = build;
    const sliceRows = this.options.sliceRows ?? defaultSliceRows;
    const slice = () => {
      // Dropped (a reset, too much garbage) meanwhile: what it appended went with it.
      if (this.building !== build) return;
      const end = Math.min(rows.length, build.next + sliceRows);
      try {
        for (let i = build.next; i < end; i++) this.append(rows[i]!);
      } catch {
        // A key that throws would throw in a scan too; here, in a scheduled step, it would end the process.
        this.drop();
        return;
      }
      this.rowsInLongestSlice = Math.max(this.rowsInLongestSlice, end - build.next);
      build.next = end;
      if (end < rows.length) return this.options.schedule!(slice);
      this.building = undefined;
      this.built = true;
      if (this.tail.length > 0) this.seal();
    };
    this.options.schedule!(slice);
  }

  private build(): void {
    if (this.built) return;
    // In one piece: a background build under way is replaced (its appended rows are dropped with it).
    if (this.building) this.drop();
    this.built = true;
    this.options.eachRow((row) => this.append(row));
    // What is built is searched with indexOf too; only texts put after the build wait in the tail.
    if (this.tail.length > 0) this.seal();
  }

  private append(row: T): void {
    const key = this.options.key(row);
    if (key === undefined) return;
    this.tail.push(row);
    this.tailKeys.push(key);
    this.entries++;
    if (this.tail.length >= this.segmentEntries) this.seal();
  }

  private seal(): void {
    const keys = this.tailKeys;
    const starts = new Int32Array(keys.length + 1);
    let at = 1;
    for (let i = 0; i < keys.length; i++) {
      starts[i] = at;
      at += keys[i]!.length + 1;
    }
    starts[keys.length] = at;
    const postings = this.options.trigrams === false ? undefined : buildTrigramPostings(keys);
    this.segments.push({ text: SEPARATOR + keys.join(SEPARATOR) + SEPARATOR, starts, rows: this.tail, postings });
    this.tail = [];
    this.tailKeys = [];
  }

  private drop(): void {
    this.building = undefined;
    this.built = false;
    this.segments = [];
    this.tail = [];
    this.tailKeys = [];
    this.entries = 0;
    this.garbage = 0;
  }
}

function matches(match: TextMatch, key: string, text: string): boolean {
  return match === 'startswith' ? key.startsWith(text) : match === 'endswith' ? key.endsWith(text) : key.includes(text);
}

/** The entry whose text (or its separator after it) holds position `at`: the last start at or before it. */
function entryAt(starts: Int32Array, at: number): number {
  let low = 0;
  let high = starts.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}
