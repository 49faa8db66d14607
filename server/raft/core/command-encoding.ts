// What may enter the raft log: a command that JSON can encode and that every later step can carry. A command is
// encoded once, when it is proposed; that text becomes the entry's JSON (entry-json.ts), which the leader writes to
// its log and sends to every follower. A command that cannot be encoded (nesting that overflows the stack, a cycle, a
// BigInt) or whose text is past what a peer frame takes (bytes, nesting depth, keys and items: frame-limits.ts) is
// refused to its proposer; in the log it would stop the node that writes it, or be refused by every follower's
// frame decoder again and again.
import { maxFrameBytes } from '../../../common/framing/frame-codec.ts';
import { peerFrameLimits } from '../../../common/framing/frame-limits.ts';
import { formatKeyPath, type KeyPath } from '../../../common/config/key-path.ts';
import { jsonTextShapeProblem, jsonTextWithinShape } from '../../../common/json/json-shape.ts';

export interface CommandLimits {
  /** UTF-8 bytes of the command's JSON. */
  readonly maxBytes: number;
  /** Objects and arrays nested inside one another; the command itself is depth 1. */
  readonly maxDepth: number;
  /** Keys of every object plus items of every array, over the whole command. */
  readonly maxMembers: number;
}

/**
 * Derived from the peer frame limits. Depth: in an append a command sits under the frame, the message, the entries
 * array and the entry (+4); the rows it makes sit, in a snapshot's first frame, under 6 levels and are at most one
 * level shallower than the command (+5). 8 levels below the frame's limit leaves room for both. Keys and items: an
 * append holding more than one entry holds at most maxBytesPerAppend (1 MiB) of them, so only a command alone in its
 * append comes near the frame's limit; 1,024 cover the frame, message and entry around it. Bytes: 64 KiB the same.
 */
export const commandLimits: CommandLimits = {
  maxBytes: (peerFrameLimits.maxBytes ?? maxFrameBytes) - 64 * 1024,
  maxDepth: (peerFrameLimits.maxDepth ?? 128) - 8,
  maxMembers: (peerFrameLimits.maxMembers ?? 8 * 1024 * 1024) - 1024,
};

/** Why a command was refused: `field` is the key path inside the command where known, else `(root)`. */
export interface CommandProblem {
  readonly field: string;
  readonly reason: string;
}

export type CommandEncoding = { readonly ok: true; readonly json: string } | { readonly ok: false; readonly problem: CommandProblem };

const root = '(root)';
/** Keys in a reported path are cut here: a hostile key may be megabytes long. */
const maxKeyEcho = 64;

/** Encodes `command` once and checks the text against `limits`: its JSON, or why it may not enter the log. */
export function encodeCommand(command: unknown, limits: CommandLimits = commandLimits): CommandEncoding {
  let json: string | undefined;
  try {
    json = JSON.stringify(command);
  } catch (error) {
    return { ok: false, problem: { field: root, reason: unencodable(error) } };
  }
  if (json === undefined) return { ok: false, problem: { field: root, reason: 'the command is not a JSON value' } };
  // Three bytes per UTF-16 unit at most: only a text that might be too long is measured.
  if (json.length * 3 > limits.maxBytes) {
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > limits.maxBytes) return { ok: false, problem: { field: root, reason: `the command is ${bytes} bytes as JSON, over the ${limits.maxBytes}-byte limit of a raft entry` } };
  }
  // Each level opens with a `{` or `[`, each member costs a character: a text with fewer brackets than the depth
  // limit and fewer characters than the member limit passes both, and counting brackets (native indexOf jumps
  // between them) costs a tenth of the full scan on a typical command.
  if (json.length > limits.maxMembers || openings(json, limits.maxDepth) > limits.maxDepth) {
    if (!jsonTextWithinShape(json, limits)) {
      const shape = jsonTextShapeProblem(json, limits);
      if (shape) return { ok: false, problem: { field: fieldOf(shape.path), reason: `the command ${shape.reason}` } };
    }
  }
  return { ok: true, json };
}

/** How many `{` and `[` the text holds (brackets inside strings too), counting no further than `stopAbove`. */
function openings(text: string, stopAbove: number): number {
  let count = 0;
  for (let at = text.indexOf('{'); at >= 0 && count <= stopAbove; at = text.indexOf('{', at + 1)) count++;
  for (let at = text.indexOf('['); at >= 0 && count <= stopAbove; at = text.indexOf('[', at + 1)) count++;
  return count;
}

function unencodable(error: unknown): string {
  if (error instanceof RangeError) return 'the command nests too deeply to be encoded as JSON';
  const message = error instanceof Error ? error.message : String(error);
  if (/circular/i.test(message)) return 'the command holds a circular reference and cannot be encoded as JSON';
  if (/bigint/i.test(message)) return 'the command holds a BigInt, which JSON cannot encode';
  return 'the command cannot be encoded as JSON';
}

function fieldOf(path: KeyPath): string {
  const clipped = path.map((segment) => (typeof segment === 'string' && segment.length > maxKeyEcho ? `${segment.slice(0, maxKeyEcho)}...` : segment));
  return clipped.length === 0 ? root : formatKeyPath(clipped);
}
