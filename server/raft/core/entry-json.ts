// Each log entry's JSON, made once. On a leader the same entry object is measured (append size limits), written to
// the log and sent to every follower: JSON.stringify of a command per use cost the hot path four encodings of every
// write. Entries are immutable, so the text is cached per object.
import type { Entry } from './types.ts';

const texts = new WeakMap<Entry, string>();

export function entryJson(entry: Entry): string {
  let text = texts.get(entry);
  if (text === undefined) {
    text = JSON.stringify({ index: entry.index, term: entry.term, type: entry.type, data: entry.data });
    texts.set(entry, text);
  }
  return text;
}

/** `entries` as a JSON array, from the cached texts. */
export function entriesJson(entries: readonly Entry[]): string {
  let text = '[';
  for (let i = 0; i < entries.length; i++) text += (i === 0 ? '' : ',') + entryJson(entries[i]!);
  return `${text}]`;
}
