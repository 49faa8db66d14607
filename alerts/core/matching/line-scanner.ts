// Finds the lines of a stream of chunks that contain any of a few needles, without splitting the chunk into
// strings: each needle is searched in the raw bytes with Buffer.indexOf (a native substring search), and only the
// lines that hold a needle are decoded. The partial last line of a chunk is kept for the next one, so a needle cut
// by a chunk boundary is still found; a line longer than `maxLineBytes` is dropped (and counted) instead of being
// buffered without bound. Pure: bytes in, matches out.

const newline = 0x0a;

export interface LineScannerOptions {
  /** Needles whose every line is wanted. */
  readonly needles: readonly string[];
  /** Needles of which only the newest few lines of each chunk are wanted (newest first). */
  readonly lastNeedles?: readonly string[];
  /** How many of the newest lines of each `lastNeedles` needle a chunk reports; default 4. */
  readonly lastCandidates?: number;
  /** Longest line kept, newline excluded; a longer one is skipped whole. */
  readonly maxLineBytes: number;
}

export interface LineMatch {
  /** Indexes into `needles` of the needles this line holds, ascending. */
  readonly needles: readonly number[];
  /** The line as UTF-8 text, without its newline. */
  readonly text: string;
}

export interface LastMatches {
  readonly count: number;
  readonly newest: readonly string[];
}

export interface ScanResult {
  /** Complete lines seen in this chunk (oversized ones included). */
  readonly lines: number;
  /** Lines holding a needle, in file order. */
  readonly matches: readonly LineMatch[];
  /** Per `lastNeedles` index: how many lines hold it, and the newest of them, newest first. */
  readonly last: readonly LastMatches[];
  /** Lines dropped for being longer than `maxLineBytes`. */
  readonly oversized: number;
}

export class LineScanner {
  private readonly needles: readonly Buffer[];
  private readonly lastNeedles: readonly Buffer[];
  private readonly lastCandidates: number;
  private readonly maxLineBytes: number;
  /** Start of the current, unfinished line (kept only while it is short enough). */
  private tail: Buffer = Buffer.alloc(0);
  /** Bytes of the current line dropped because it is too long; > 0 means "skip to the next newline". */
  private skipped = 0;

  constructor(options: LineScannerOptions) {
    this.needles = options.needles.map((needle) => toNeedle(needle));
    this.lastNeedles = (options.lastNeedles ?? []).map((needle) => toNeedle(needle));
    this.lastCandidates = options.lastCandidates ?? 4;
    this.maxLineBytes = options.maxLineBytes;
  }

  /** Bytes received after the last newline: a reader that restarts should resume this far back. */
  get pendingBytes(): number {
    return this.skipped > 0 ? this.skipped : this.tail.length;
  }

  /** Forgets the unfinished line, as when the file is truncated or replaced. */
  reset(): void {
    this.tail = Buffer.alloc(0);
    this.skipped = 0;
  }

  scan(chunk: Buffer): ScanResult {
    let from = 0;
    let straddling: ScanResult | undefined;
    if (this.skipped > 0 || this.tail.length > 0) {
      // The line begun in an earlier chunk: finished here, or still going on.
      const end = chunk.indexOf(newline);
      if (end === -1) {
        this.keepUnfinished(chunk);
        return this.nothing();
      }
      if (this.skipped > 0 || this.tail.length + end > this.maxLineBytes) {
        straddling = { ...this.nothing(), lines: 1, oversized: 1 };
      } else {
        straddling = this.examine(Buffer.concat([this.tail, chunk.subarray(0, end + 1)]));
      }
      this.tail = Buffer.alloc(0);
      this.skipped = 0;
      from = end + 1;
    }
    // The complete lines are searched where they lie in the chunk, without copying it.
    const complete = chunk.lastIndexOf(newline) + 1;
    const body = complete > from ? this.examine(chunk.subarray(from, complete)) : this.nothing();
    this.keepUnfinished(chunk.subarray(Math.max(from, complete)));
    return straddling ? merge(straddling, body, this.lastCandidates) : body;
  }

  /** Keeps the start of an unfinished line (a copy: the caller may reuse the chunk), or only its length if too long. */
  private keepUnfinished(rest: Buffer): void {
    if (rest.length === 0) return;
    if (this.skipped > 0) this.skipped += rest.length;
    else if (this.tail.length + rest.length > this.maxLineBytes) {
      this.skipped = this.tail.length + rest.length;
      this.tail = Buffer.alloc(0);
    } else this.tail = this.tail.length === 0 ? Buffer.from(rest) : Buffer.concat([this.tail, rest]);
  }

  private nothing(): ScanResult {
    return { lines: 0, matches: [], last: this.lastNeedles.map(() => ({ count: 0, newest: [] })), oversized: 0 };
  }

  /** Complete lines: `body` ends with a newline. */
  private examine(body: Buffer): ScanResult {
    const counted = countLines(body, this.maxLineBytes);
    return {
      lines: counted.lines,
      matches: this.findMatches(body),
      last: this.lastNeedles.map((needle) => this.findLast(body, needle)),
      oversized: counted.oversized,
    };
  }

  private findMatches(body: Buffer): LineMatch[] {
    const hits: { start: number; end: number; needle: number }[] = [];
    this.needles.forEach((needle, index) => {
      let at = body.indexOf(needle);
      while (at !== -1) {
        const start = body.lastIndexOf(newline, at) + 1;
        const end = body.indexOf(newline, at);
        hits.push({ start, end, needle: index });
        at = body.indexOf(needle, end + 1);
      }
    });
    if (hits.length === 0) return [];
    hits.sort((a, b) => a.start - b.start || a.needle - b.needle);
    const matches: LineMatch[] = [];
    let group: { start: number; end: number; needles: number[] } | undefined;
    const flush = () => {
      if (group && group.end - group.start <= this.maxLineBytes) matches.push({ needles: group.needles, text: body.toString('utf8', group.start, group.end) });
    };
    for (const hit of hits) {
      if (group && group.start === hit.start) {
        group.needles.push(hit.needle);
        continue;
      }
      flush();
      group = { start: hit.start, end: hit.end, needles: [hit.needle] };
    }
    flush();
    return matches;
  }

  private findLast(body: Buffer, needle: Buffer): LastMatches {
    const newest: string[] = [];
    // body ends with a newline; search backwards from just before it.
    let from = body.length - 1;
    while (newest.length < this.lastCandidates && from >= 0) {
      const at = body.lastIndexOf(needle, from);
      if (at === -1) break;
      const start = body.lastIndexOf(newline, at) + 1;
      const end = body.indexOf(newline, at);
      if (end - start <= this.maxLineBytes) newest.push(body.toString('utf8', start, end));
      from = start - 2;
    }
    return { count: countLinesHolding(body, needle), newest };
  }
}

/** Lines holding `needle`: one native search per such line. */
function countLinesHolding(body: Buffer, needle: Buffer): number {
  let count = 0;
  let at = body.indexOf(needle);
  while (at !== -1) {
    count++;
    at = body.indexOf(needle, body.indexOf(newline, at) + 1);
  }
  return count;
}

/** Results of an earlier stretch of lines and of the one after it, in file order (newest first for `last`). */
function merge(earlier: ScanResult, later: ScanResult, lastCandidates: number): ScanResult {
  return {
    lines: earlier.lines + later.lines,
    oversized: earlier.oversized + later.oversized,
    matches: [...earlier.matches, ...later.matches],
    last: later.last.map((found, index) => ({
      count: found.count + earlier.last[index]!.count,
      newest: [...found.newest, ...earlier.last[index]!.newest].slice(0, lastCandidates),
    })),
  };
}

function toNeedle(text: string): Buffer {
  if (text === '' || text.includes('\n')) throw new Error(`a needle must be non-empty and on one line: ${JSON.stringify(text)}`);
  return Buffer.from(text, 'utf8');
}

/** Newlines in `body` and how many of the lines they end are too long; one native search per line. */
function countLines(body: Buffer, maxLineBytes: number): { lines: number; oversized: number } {
  let lines = 0;
  let oversized = 0;
  let start = 0;
  let at = body.indexOf(newline);
  while (at !== -1) {
    lines++;
    if (at - start > maxLineBytes) oversized++;
    start = at + 1;
    at = body.indexOf(newline, start);
  }
  return { lines, oversized };
}
