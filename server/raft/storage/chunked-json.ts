// JSON text of a large value made a piece at a time, yielding to the event loop between pieces: a snapshot of the
// whole model (45 MB of JSON at 150k identities) stringified at once held the controller's only thread for about
// 250 ms every snapshot interval, and every request waited behind it. The text is exactly JSON.stringify's. The
// value must not change while it is encoded: the model's rows are replaced on write, never changed in place, and a
// snapshot holds its own arrays of them.

/** Called with each piece of the text, in order. */
export type JsonSink = (piece: string) => void;

export interface ChunkedJsonOptions {
  /** About how much text to make between yields. */
  readonly pieceChars?: number;
  /** How to yield; setImmediate by default (lets I/O in). */
  readonly yieldNow?: () => Promise<void>;
}

const defaultPieceChars = 1 << 20;
/** The default pause: one turn of the event loop, so pending I/O runs. */
export const setImmediateYield = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Writes `value`'s JSON text to `sink` in pieces; false when JSON.stringify would give undefined (nothing written). */
export async function encodeJsonInPieces(value: unknown, sink: JsonSink, options: ChunkedJsonOptions = {}): Promise<boolean> {
  const encoder = new PieceEncoder(sink, options.pieceChars ?? defaultPieceChars);
  const yieldNow = options.yieldNow ?? setImmediateYield;
  // The walk is synchronous between pieces (an await per item cost three times the encoding itself); it stops
  // after each full piece, and the piece leaves before the pause.
  const walk = encoder.value(value);
  let step = walk.next();
  while (!step.done) {
    encoder.flush();
    await yieldNow();
    step = walk.next();
  }
  encoder.flush();
  return step.value;
}

class PieceEncoder {
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(
    private readonly sink: JsonSink,
    private readonly pieceChars: number,
  ) {}

  /** Encodes one value, pausing (yield) whenever a piece is full; false when it has no JSON form (undefined, a
   * function, a symbol). */
  *value(value: unknown): Generator<void, boolean> {
    if (isWalked(value)) {
      yield* Array.isArray(value) ? this.array(value) : this.object(value as Record<string, unknown>);
      return true;
    }
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) return false;
    this.put(text);
    if (this.full()) yield;
    return true;
  }

  flush(): void {
    if (this.pending.length === 0) return;
    this.sink(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }

  private *array(items: readonly unknown[]): Generator<void> {
    this.put('[');
    // A run of items is one JSON.stringify (its fast path for arrays; per item calls cost twice the time), with the
    // brackets cut off; within it a value without a JSON form is null, as in any array.
    for (let from = 0; from < items.length; from += itemsPerRun) {
      const run = JSON.stringify(items.slice(from, from + itemsPerRun));
      this.put(from === 0 ? run.slice(1, -1) : `,${run.slice(1, -1)}`);
      if (this.full()) yield;
    }
    this.put(']');
  }

  private *object(record: Record<string, unknown>): Generator<void> {
    let separator = '{';
    for (const key of Object.keys(record)) {
      const item = record[key];
      const walked = isWalked(item);
      const text = walked ? undefined : (JSON.stringify(item) as string | undefined);
      // A key whose value has no JSON form is left out, as JSON.stringify leaves it.
      if (!walked && text === undefined) continue;
      this.put(`${separator}${JSON.stringify(key)}:`);
      separator = ',';
      if (walked) yield* this.value(item);
      else {
        this.put(text!);
        if (this.full()) yield;
      }
    }
    this.put(separator === '{' ? '{}' : '}');
  }

  private put(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
  }

  private full(): boolean {
    return this.pendingChars >= this.pieceChars;
  }
}

/** Arrays longer than this are encoded a run of items at a time, so that the encoding can pause between runs. */
const largeArray = 256;
const itemsPerRun = 256;

function isLargeArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && value.length > largeArray;
}

/** Whether the value is walked here (a large array, or a plain object holding one) rather than stringified whole. */
function isWalked(value: unknown): boolean {
  return isLargeArray(value) || (isPlainObject(value) && holdsLargeArray(value));
}

/** Whether a plain object holds a large array, directly or in plain objects within it (a snapshot's tables). */
function holdsLargeArray(record: Record<string, unknown>, depth = 0): boolean {
  if (depth > 4) return false;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (isLargeArray(item) || (isPlainObject(item) && holdsLargeArray(item, depth + 1))) return true;
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
