// Fewer messages for the same meaning, before a Ready's messages leave: in one Ready a leader often has, for the
// same follower, an append carrying new entries and a commit-only append (its commit index moved when an answer
// came in), and a follower often has several answers for its leader. Each message costs a frame, a network write
// and, for appends, a whole round on the follower (persist, apply, answer), so they are merged:
// - two appends in a row to one peer, of one term, where the second continues the first (its prevIndex is where
//   the first ends), become one append with the entries of both and the higher commit, up to `maxEntries` entries
//   (a leader sends an append per proposal, so a Ready holding four proposals held four appends per follower);
// - two successful append answers in a row to one peer, of one term, become the later one (answers are
//   cumulative: the later index covers the earlier).
// "In a row" means no other message to that peer between them, so each peer still sees its messages in order.
// A merged append never carries more than `maxEntries` (the core's own per-append limit by default).
import type { Message } from '../core/types.ts';

type Append = Extract<Message, { type: 'Append' }>;
type AppendResp = Extract<Message, { type: 'AppendResp' }>;

export function coalesceMessages(messages: readonly Message[], maxEntries = 64): Message[] {
  if (messages.length < 2) return [...messages];
  const out: Array<Message | undefined> = [];
  /** Where the last message kept for each peer sits in `out`. */
  const lastTo = new Map<string, number>();
  for (const message of messages) {
    const at = lastTo.get(message.to);
    const previous = at === undefined ? undefined : out[at];
    const merged = previous === undefined ? undefined : merge(previous, message, maxEntries);
    if (merged !== undefined && at !== undefined) {
      // The merged message takes the later one's place, so it still follows whatever went to others before it.
      out[at] = undefined;
      lastTo.set(message.to, out.push(merged) - 1);
      continue;
    }
    lastTo.set(message.to, out.push(message) - 1);
  }
  return out.filter((message): message is Message => message !== undefined);
}

function merge(first: Message, second: Message, maxEntries: number): Message | undefined {
  if (first.term !== second.term) return undefined;
  if (first.type === 'Append' && second.type === 'Append') return mergeAppends(first, second, maxEntries);
  if (first.type === 'AppendResp' && second.type === 'AppendResp') return mergeAnswers(first, second);
  return undefined;
}

function mergeAppends(first: Append, second: Append, maxEntries: number): Append | undefined {
  if (second.prevIndex !== first.prevIndex + first.entries.length) return undefined;
  const commit = Math.max(first.commit, second.commit);
  if (second.entries.length === 0) return { ...first, commit };
  if (first.entries.length === 0) return { ...second, commit };
  if (first.entries.length + second.entries.length > maxEntries) return undefined;
  return { ...first, entries: [...first.entries, ...second.entries], commit };
}

function mergeAnswers(first: AppendResp, second: AppendResp): AppendResp | undefined {
  if (first.reject || second.reject || second.index < first.index) return undefined;
  return second;
}
