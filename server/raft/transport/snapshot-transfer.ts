// A raft snapshot between controllers, in frames of bounded size. As one frame, a model of ~890k identities is past
// the 256 MiB frame limit (so a follower behind the compacted log could never catch up, and the failed send stopped
// the leader's raft node), and encoding it held the leader's event loop for seconds. Instead the data's large arrays
// (the model's tables) leave as parts: a `snapBegin` frame carries the message with those arrays empty, each
// `snapPart` appends a slice of items to the array at its path, and `snapEnd` counts the parts. The sender encodes a
// part at a time, waits while the socket is backed up and lets the event loop run between parts; the receiver
// parses each part on its own and hands raft the whole message only once every part has arrived.
import type { Message } from '../core/types.ts';
import { arrayAtPath, withoutLargeArrays } from '../large-arrays.ts';

export type SnapshotMessage = Extract<Message, { type: 'Snapshot' }>;
export type SnapshotPath = readonly string[];

/** Arrays longer than this leave in parts; shorter ones travel inside the first frame. */
const splitArraysLongerThan = 16;
/** What a part aims at (the frame limit permitting): large enough that per-frame costs vanish, small enough that
 * encoding one holds the event loop for about a millisecond. */
const targetPartChars = 256 * 1024;
/** A UTF-8 byte per character, at most three (a UTF-16 unit encodes to at most three bytes). */
const maxBytesPerChar = 3;

/** Where the frames go: one JSON text per frame; `ready` resolves when more may be sent (false: stop). */
export interface SnapshotFrameSink {
  send(json: string): void;
  ready(): Promise<boolean>;
}

/** Sends `message` through `sink`; the number of parts sent, or undefined when the sink stopped it (a closed channel). */
export async function sendSnapshotInParts(message: SnapshotMessage, tid: string, sink: SnapshotFrameSink, maxFrameBytes: number): Promise<number | undefined> {
  const arrays: Array<{ path: SnapshotPath; items: readonly unknown[] }> = [];
  const data = withoutLargeArrays(message.snapshot.data, splitArraysLongerThan, arrays);
  const head = JSON.stringify({ type: 'snapBegin', tid, message: { ...message, snapshot: { ...message.snapshot, data } } });
  checkFits(head, maxFrameBytes, 'the snapshot without its large arrays');
  sink.send(head);
  const targetChars = Math.max(1, Math.min(targetPartChars, Math.floor(maxFrameBytes / maxBytesPerChar) - 1024));
  let parts = 0;
  for (const { path, items } of arrays) {
    const prefix = `{"type":"snapPart","tid":${JSON.stringify(tid)},"path":${JSON.stringify(path)},"items":[`;
    let texts: string[] = [];
    let chars = 0;
    const flush = async (): Promise<boolean> => {
      if (texts.length === 0) return true;
      const frame = `${prefix}${texts.join(',')}]}`;
      checkFits(frame, maxFrameBytes, `a snapshot item at ${path.join('.')}`);
      texts = [];
      chars = 0;
      sink.send(frame);
      parts++;
      return sink.ready();
    };
    for (const item of items) {
      const text = JSON.stringify(item) ?? 'null';
      if (chars > 0 && chars + text.length + 1 > targetChars && !(await flush())) return undefined;
      texts.push(text);
      chars += text.length + 1;
    }
    if (!(await flush())) return undefined;
  }
  sink.send(JSON.stringify({ type: 'snapEnd', tid, parts }));
  return parts;
}

function checkFits(json: string, maxFrameBytes: number, what: string): void {
  if (json.length * maxBytesPerChar <= maxFrameBytes) return;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxFrameBytes) throw new Error(`${what} is ${bytes} bytes as JSON, past the ${maxFrameBytes}-byte frame limit`);
}

/** A snapshot being received: the first frame's message, filled in by parts until the last frame. */
export class SnapshotAssembly {
  private parts = 0;

  constructor(
    readonly tid: string,
    private readonly message: SnapshotMessage,
  ) {}

  /** Checks the first frame; throws on anything that is not a snapshot message. */
  static begin(frame: { tid?: unknown; message?: unknown }): SnapshotAssembly {
    const { tid, message } = frame;
    if (typeof tid !== 'string') throw new Error('snapshot transfer without an id');
    const candidate = message as Partial<SnapshotMessage> | null;
    if (typeof candidate !== 'object' || candidate === null || candidate.type !== 'Snapshot' || typeof candidate.snapshot !== 'object' || candidate.snapshot === null) {
      throw new Error('snapshot transfer that does not start with a snapshot message');
    }
    return new SnapshotAssembly(tid, candidate as SnapshotMessage);
  }

  /** Appends a part's items to the array at its path; throws when the path does not lead to one. */
  add(path: unknown, items: unknown): void {
    if (!Array.isArray(path) || !path.every((key) => typeof key === 'string')) throw new Error('snapshot part without a path of keys');
    if (!Array.isArray(items)) throw new Error('snapshot part without items');
    const target = arrayAtPath(this.message.snapshot.data, path as string[]);
    if (!target) throw new Error(`snapshot part for ${JSON.stringify(path)}, which is not an array in the snapshot`);
    for (const item of items) target.push(item);
    this.parts++;
  }

  /** The whole message, once the last frame confirms every part arrived. */
  finish(parts: unknown): SnapshotMessage {
    if (parts !== this.parts) throw new Error(`snapshot transfer ended after ${this.parts} parts, but ${String(parts)} were sent`);
    return this.message;
  }
}
