// Which entries of one sealed segment of a text index (substring-search.ts) may hold a search string, so a search
// verifies a few candidates instead of running indexOf over every text: for each trigram (three UTF-16 code units) of
// the entries' lowercased texts, the entries that hold it, in typed arrays. At 1M names the indexOf scan was ~11 ms of
// CPU per `contains` (every name holds `-`), almost all of a list's cost.
//
// One index serves `contains`, `startswith`, `endswith` and `icontains`, so `icontains` needs no lowercased copy of
// the texts: the entries are lowercased as a whole (String.prototype.toLowerCase, what filter-compiler.ts's
// `icontains` compares), and a search string's trigrams are taken from its own lowercasing. A row's lowercased text
// holds every trigram of a lowercased search string it holds (`icontains`). For the exact-case matches, lowercasing a
// text maps each code point on its own except Σ, which becomes σ or ς by what follows it, so a text holding the search
// string holds every trigram of the lowercased string that has neither σ nor ς. Candidates are therefore a superset;
// the caller verifies each against the text. Trigrams are hashed to 32 bits (exact for code units below 1,031, which
// covers Latin, Greek and Cyrillic); a collision only adds candidates.
//
// A trigram held by more than an eighth of the entries (in `list-id-<n>` names: `lis`, `-id`, ...) keeps no
// postings, only its hash: it narrows little and would cost two bytes per entry. A search whose trigrams are all
// dense in a segment is told so (undefined) and checks that segment's every entry.

export interface TrigramPostings {
  /** Sorted hashes of the trigrams that keep postings. */
  readonly hashes: Uint32Array;
  /** The entries holding hashes[i]: entries[offsets[i]] up to entries[offsets[i + 1]], ascending. */
  readonly offsets: Uint32Array;
  readonly entries: Uint16Array;
  /** Sorted hashes of the trigrams held by too many entries to keep postings. */
  readonly dense: Uint32Array;
}

/** Entries a segment may hold: postings are 16-bit. */
export const MAX_SEGMENT_ENTRIES = 65_536;
/** A trigram held by more than this share of a segment's entries keeps no postings. */
const DENSE_SHARE = 1 / 8;
/** ...and by more than this many entries (small segments keep every posting). */
const DENSE_MIN = 32;

function hashAt(text: string, at: number): number {
  return (Math.imul(Math.imul(text.charCodeAt(at), 1031) + text.charCodeAt(at + 1), 1031) + text.charCodeAt(at + 2)) >>> 0;
}

/**
 * Working arrays reused by every build (builds run one at a time on the one thread): a segment's ~50,000 trigram
 * occurrences in fresh typed arrays were ~600 KB of short-lived array buffers per 4,096 names, and at 1M names that
 * churn made V8 run full collections of the whole heap during the build (a 10 ms ticker saw 1.5-3.6 s gaps).
 */
const scratch = { hashes: new Uint32Array(0), entries: new Uint16Array(0), spareHashes: new Uint32Array(0), spareEntries: new Uint16Array(0), kept: new Uint16Array(0), counts: new Uint32Array(1 << 11) };

function reserve(total: number): void {
  if (scratch.hashes.length >= total) return;
  const size = Math.max(total, scratch.hashes.length * 2, 1024);
  scratch.hashes = new Uint32Array(size);
  scratch.entries = new Uint16Array(size);
  scratch.spareHashes = new Uint32Array(size);
  scratch.spareEntries = new Uint16Array(size);
  scratch.kept = new Uint16Array(size);
}

/** The postings of `keys` (entry i is keys[i], as the caller holds it; lowercased here). */
export function buildTrigramPostings(keys: readonly string[]): TrigramPostings {
  if (keys.length > MAX_SEGMENT_ENTRIES) throw new Error(`a segment holds at most ${MAX_SEGMENT_ENTRIES} entries`);
  let total = 0;
  const folded = keys.map((key) => {
    const lower = key.toLowerCase();
    total += Math.max(0, lower.length - 2);
    return lower;
  });
  reserve(total);
  // Each trigram occurrence, entries ascending; sorted by hash (stable), the entries of each trigram stay ascending.
  let n = 0;
  {
    const { hashes, entries } = scratch;
    for (let entry = 0; entry < folded.length; entry++) {
      const text = folded[entry]!;
      for (let at = 0; at + 2 < text.length; at++) {
        hashes[n] = hashAt(text, at);
        entries[n++] = entry;
      }
    }
  }
  const [hashOf, entryOf] = radixSortByHash(n);

  const denseAbove = Math.max(DENSE_MIN, keys.length * DENSE_SHARE);
  const hashes: number[] = [];
  const dense: number[] = [];
  const offsets: number[] = [0];
  const entries = scratch.kept;
  let kept = 0;
  for (let i = 0; i < n; ) {
    const hash = hashOf[i]!;
    const start = kept;
    let previous = -1;
    for (; i < n && hashOf[i] === hash; i++) {
      const entry = entryOf[i]!;
      // A text holding a trigram twice is one posting.
      if (entry !== previous) entries[kept++] = previous = entry;
    }
    if (kept - start > denseAbove) {
      kept = start;
      dense.push(hash);
    } else {
      hashes.push(hash);
      offsets.push(kept);
    }
  }
  return { hashes: Uint32Array.from(hashes), offsets: Uint32Array.from(offsets), entries: entries.slice(0, kept), dense: Uint32Array.from(dense) };
}

const RADIX_BITS = 11;
const RADIX = 1 << RADIX_BITS;

/** The first n pairs of the scratch arrays sorted by hash, stable: three passes of 11 bits (a comparison sort of the
 * ~50,000 trigrams of 4,096 names took 3.6 ms, nearly all of a segment's build). Gives the arrays holding them. */
function radixSortByHash(n: number): [Uint32Array, Uint16Array] {
  let fromHashes = scratch.hashes;
  let fromEntries = scratch.entries;
  let toHashes = scratch.spareHashes;
  let toEntries = scratch.spareEntries;
  const { counts } = scratch;
  for (let shift = 0; shift < 32; shift += RADIX_BITS) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(fromHashes[i]! >>> shift) & (RADIX - 1)]!++;
    let sum = 0;
    for (let digit = 0; digit < RADIX; digit++) {
      const count = counts[digit]!;
      counts[digit] = sum;
      sum += count;
    }
    for (let i = 0; i < n; i++) {
      const at = counts[(fromHashes[i]! >>> shift) & (RADIX - 1)]!++;
      toHashes[at] = fromHashes[i]!;
      toEntries[at] = fromEntries[i]!;
    }
    [fromHashes, toHashes] = [toHashes, fromHashes];
    [fromEntries, toEntries] = [toEntries, fromEntries];
  }
  return [fromHashes, fromEntries];
}

/**
 * The trigram hashes a search may narrow by (distinct), from `text` as the filter gives it: for `icontains`, every
 * trigram of its lowercasing; for the exact-case matches, those without σ or ς (see above). Empty when there are none
 * (fewer than three code units): the index cannot narrow that search.
 */
export function searchTrigrams(caseInsensitive: boolean, text: string): number[] {
  const lower = text.toLowerCase();
  const found = new Set<number>();
  for (let at = 0; at + 2 < lower.length; at++) {
    if (!caseInsensitive && /[σς]/.test(lower.slice(at, at + 3))) continue;
    found.add(hashAt(lower, at));
  }
  return [...found];
}

/** Bytes the postings hold. */
export function postingsBytes(postings: TrigramPostings): number {
  return postings.hashes.byteLength + postings.offsets.byteLength + postings.entries.byteLength + postings.dense.byteLength;
}

/**
 * The entries of the segment that hold every trigram in `hashes`, ascending; undefined when every one of them is dense
 * here (each entry must be checked).
 */
export function candidateEntries(postings: TrigramPostings, hashes: readonly number[]): ArrayLike<number> | undefined {
  const lists: Uint16Array[] = [];
  for (const hash of hashes) {
    const at = indexOf(postings.hashes, hash);
    if (at >= 0) lists.push(postings.entries.subarray(postings.offsets[at]!, postings.offsets[at + 1]!));
    // Held by no entry: nothing here matches.
    else if (indexOf(postings.dense, hash) < 0) return [];
  }
  if (lists.length === 0) return undefined;
  lists.sort((a, b) => a.length - b.length);
  let result: ArrayLike<number> = lists[0]!;
  for (let k = 1; k < lists.length && result.length > 0; k++) result = intersect(result, lists[k]!);
  return result;
}

function intersect(a: ArrayLike<number>, b: Uint16Array): number[] {
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const value = a[i]!;
    while (j < b.length && b[j]! < value) j++;
    if (j === b.length) break;
    if (b[j] === value) out.push(value);
  }
  return out;
}

function indexOf(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = sorted[mid]!;
    if (at === value) return mid;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
