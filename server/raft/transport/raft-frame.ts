// The JSON of a peer frame carrying a raft message. An append's entries are spliced in from their cached JSON
// (entry-json.ts) instead of being encoded again for every follower; everything else is plain JSON.stringify.
// The text is exactly what JSON.stringify({type: 'raft', message}) gives, up to the order of the append's fields.
import { entriesJson } from '../core/entry-json.ts';
import type { Message } from '../core/types.ts';

export function raftFrameJson(message: Message): string {
  if (message.type !== 'Append' || message.entries.length === 0) return JSON.stringify({ type: 'raft', message });
  const { entries, ...rest } = message;
  const head = JSON.stringify(rest);
  return `{"type":"raft","message":${head.slice(0, -1)},"entries":${entriesJson(entries)}}}`;
}
