// The router's edge data model: the latest `ctrl.edgeModel` it was sent (the highest raft index wins), and its
// on-disk snapshot: gzip of a JSON document `{format, index, savedAt, model}`. (OpenZiti writes gzipped protobuf;
// edgeward writes gzipped JSON, same name and same role.) Pure: bytes in, bytes out.

import { gunzipSync, gzipSync } from 'node:zlib';
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';

export const edgeSnapshotFormat = 'edgeward.edge-model.v1';

export interface EdgeSnapshot {
  readonly index: number;
  readonly model: EdgeModel;
}

export const emptyEdgeModel: EdgeModel = Object.freeze({ services: [] });

/** Keeps the newest model and whether it changed since it was last saved. */
export class EdgeModelHolder {
  private snapshot: EdgeSnapshot;
  private savedIndex: number;

  constructor(initial?: EdgeSnapshot) {
    this.snapshot = initial ?? { index: 0, model: emptyEdgeModel };
    this.savedIndex = this.snapshot.index;
  }

  get current(): EdgeSnapshot {
    return this.snapshot;
  }

  /** True when the model was taken (its index is above the one held). */
  offer(index: number, model: EdgeModel): boolean {
    if (!(index > this.snapshot.index)) return false;
    this.snapshot = { index, model };
    return true;
  }

  /**
   * The model a controller sent with its welcome, taken whatever its index: the controller's model is the truth (after
   * a restore its index may be below the one held), and the deltas that follow on that channel start from it.
   */
  replace(index: number, model: EdgeModel): void {
    this.snapshot = { index, model };
    // Saved again even at the same index: the rows may differ.
    this.savedIndex = -1;
  }

  /** True when the held model is not yet on disk. */
  get dirty(): boolean {
    return this.snapshot.index !== this.savedIndex;
  }

  markSaved(index: number): void {
    this.savedIndex = index;
  }
}

export function encodeEdgeSnapshot(snapshot: EdgeSnapshot, savedAt: number): Buffer {
  return gzipSync(Buffer.from(JSON.stringify({ format: edgeSnapshotFormat, index: snapshot.index, savedAt: new Date(savedAt).toISOString(), model: snapshot.model }), 'utf8'));
}

/** Throws with a reason when the bytes are not a snapshot edgeward wrote. */
export function decodeEdgeSnapshot(bytes: Buffer): EdgeSnapshot {
  let text: string;
  try {
    text = gunzipSync(bytes).toString('utf8');
  } catch {
    throw new Error('not gzip data');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('not JSON inside the gzip data');
  }
  const document = value as { format?: unknown; index?: unknown; model?: { services?: unknown; identities?: unknown } } | null;
  if (!document || document.format !== edgeSnapshotFormat) throw new Error(`not an ${edgeSnapshotFormat} snapshot`);
  if (typeof document.index !== 'number' || !Number.isInteger(document.index) || document.index < 0) throw new Error('bad index');
  if (!document.model || !Array.isArray(document.model.services) || (document.model.identities !== undefined && !Array.isArray(document.model.identities))) throw new Error('bad model');
  return { index: document.index, model: document.model as EdgeModel };
}
