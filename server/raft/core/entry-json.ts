// Each log entry's JSON, made once. On a leader the same entry object is measured (append size limits), written to
// the log and sent to every follower: JSON.stringify of a command per use cost the hot path four encodings of every
// write. Entries are immutable, so the text is kept on the entry itself, under a symbol and not enumerable (JSON and
// deep-equality comparisons never see it). It was a WeakMap: under load the garbage collector's ephemeron pass over
// 100k+ entries cost more than the texts saved. Once an entry is applied and every follower holds it, its text is
// released (releaseEntryJson); should it be needed again (a new or lagging follower), it is made again.
import type { Entry } from './types.ts';

const text = Symbol('entryJson');
type WithText = Entry & { [text]?: string | undefined };

export function entryJson(entry: Entry): string {
  const cached = (entry as WithText)[text];
  if (cached !== undefined) return cached;
  const made = JSON.stringify({ index: entry.index, term: entry.term, type: entry.type, data: entry.data });
  Object.defineProperty(entry, text, { value: made, writable: true, enumerable: false, configurable: false });
  return made;
}

/** A new normal entry carrying a command already encoded (command-encoding.ts): exactly the text entryJson would
 * make, without encoding the command a second time. */
export function normalEntryWithJson(index: number, term: number, data: unknown, dataJson: string): Entry {
  const entry: Entry = { index, term, type: 'normal', data };
  Object.defineProperty(entry, text, { value: `{"index":${index},"term":${term},"type":"normal","data":${dataJson}}`, writable: true, enumerable: false, configurable: false });
  return entry;
}

/** Gives the entry the JSON text it arrived in (a follower's append): exactly the text entryJson would make. */
export function adoptEntryJson(entry: Entry, json: string): void {
  if ((entry as WithText)[text] !== undefined) return;
  Object.defineProperty(entry, text, { value: json, writable: true, enumerable: false, configurable: false });
}

/** Drops the entry's cached text (kept as an undefined property, so the entry's shape does not change). */
export function releaseEntryJson(entry: Entry): void {
  if ((entry as WithText)[text] !== undefined) (entry as WithText)[text] = undefined;
}

/** Whether the entry holds its text now (for tests). */
export function holdsEntryJson(entry: Entry): boolean {
  return (entry as WithText)[text] !== undefined;
}

/** `entries` as a JSON array, from the cached texts. */
export function entriesJson(entries: readonly Entry[]): string {
  let json = '[';
  for (let i = 0; i < entries.length; i++) json += (i === 0 ? '' : ',') + entryJson(entries[i]!);
  return `${json}]`;
}
