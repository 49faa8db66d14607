// The JSON of a peer frame carrying a raft message. An append's entries are spliced in from their cached JSON
// (entry-json.ts) instead of being encoded again for every follower; everything else is plain JSON.stringify.
// The text is what JSON.stringify({type: 'raft', message}) gives, up to the order of the append's fields, plus
// `entryLengths`: the length of each entry's text, so that a follower can keep each entry's text as it arrived
// (keepReceivedEntryTexts) and write its log from it instead of encoding every entry again (~5% of a follower's
// samples). A member that does not know the field ignores it; without it, a follower encodes as before.
import { adoptEntryJson, entriesJson, entryJson } from '../core/entry-json.ts';
import type { Entry, Message } from '../core/types.ts';

const entriesKey = '"entries":[';

export function raftFrameJson(message: Message): string {
  if (message.type !== 'Append' || message.entries.length === 0) return JSON.stringify({ type: 'raft', message });
  const { entries, ...rest } = message;
  const head = JSON.stringify(rest);
  const lengths = entries.map((entry) => entryJson(entry).length).join(',');
  return `{"type":"raft","message":${head.slice(0, -1)},"entryLengths":[${lengths}],"entries":${entriesJson(entries)}}}`;
}

/**
 * Given a decoded raft frame and the text it was decoded from, gives each entry of an append its own slice of that
 * text as its JSON. Anything that does not line up (no or malformed lengths, a slice that does not start with the
 * entry's index and term or does not end at a separator) leaves the entries as they are, to be encoded when needed.
 */
export function keepReceivedEntryTexts(frame: unknown, text: string): void {
  if (typeof frame !== 'object' || frame === null) return;
  const { type, message } = frame as { type?: unknown; message?: { type?: unknown; entries?: unknown; entryLengths?: unknown } };
  if (type !== 'raft' || typeof message !== 'object' || message === null || message.type !== 'Append') return;
  const { entries, entryLengths } = message;
  if (!Array.isArray(entries) || !Array.isArray(entryLengths) || entries.length === 0 || entryLengths.length !== entries.length) return;
  // The head before the entries holds only numbers and member ids, so the first occurrence is the append's own.
  let at = text.indexOf(entriesKey);
  if (at < 0) return;
  at += entriesKey.length;
  const slices: string[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const length: unknown = entryLengths[i];
    const entry = entries[i] as Entry;
    if (typeof length !== 'number' || !Number.isInteger(length) || length <= 0 || typeof entry !== 'object' || entry === null) return;
    const end = at + length;
    if (text.charCodeAt(end) !== (i === entries.length - 1 ? closeBracket : comma)) return;
    if (!text.startsWith(`{"index":${entry.index},"term":${entry.term},`, at)) return;
    slices[i] = text.slice(at, end);
    at = end + 1;
  }
  for (let i = 0; i < entries.length; i++) adoptEntryJson(entries[i] as Entry, slices[i]!);
}

const comma = 44;
const closeBracket = 93;
