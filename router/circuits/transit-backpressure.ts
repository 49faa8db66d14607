// Bounded memory for a transit router: bytes a router forwards from one link into another wait in the outgoing
// link's socket until it takes them. Credit flow control bounds each circuit end to end, but a sender that ignores it
// (or many circuits at once) would let that queue grow without limit here. So each incoming link's forwarded bytes
// not yet taken are counted; past the high-water mark the router stops reading that link (its peer's writes back up
// into the peer), and below the low-water mark it reads again. Bytes delivered to this router's own circuit ends are
// not counted: each end refuses more than its window (circuit-end.ts), and pausing a whole link for one slow client
// would stall every other circuit on it.

/** The part of a link this needs: its reading can be paused. */
export interface PausableLink {
  readonly id: string;
  pauseReading(): void;
  resumeReading(): void;
}

export interface TransitMarks {
  /** Forwarded bytes from one link, not yet taken by the links they went to, at which that link stops being read. */
  readonly highWaterBytes: number;
  /** ... and at or below which it is read again. */
  readonly lowWaterBytes: number;
}

/** 8 MiB: two circuit windows in flight per incoming link before it is paused; read again at 2 MiB. */
export const defaultTransitMarks: TransitMarks = { highWaterBytes: 8 * 1024 * 1024, lowWaterBytes: 2 * 1024 * 1024 };

export interface TransitEvents {
  paused(link: PausableLink, queuedBytes: number): void;
  resumed(link: PausableLink, queuedBytes: number): void;
}

interface SourceState {
  bytes: number;
  paused: boolean;
  /** Bytes not yet taken, by the link they were written to (released at once when that link closes). */
  readonly byDestination: Map<object, number>;
}

export class TransitBackpressure {
  private readonly sources = new Map<PausableLink, SourceState>();
  private pauseCount = 0;

  constructor(
    private readonly marks: TransitMarks,
    private readonly events: TransitEvents,
  ) {
    if (!(marks.lowWaterBytes >= 0 && marks.lowWaterBytes < marks.highWaterBytes)) throw new Error('transit marks: low water must be below high water');
  }

  /**
   * `bytes` from `source` are being written to `destination`: counted until the returned callback runs (the
   * destination's socket took them, or failed to). Pauses `source` past the high-water mark.
   */
  hold(source: PausableLink, destination: object, bytes: number): () => void {
    let state = this.sources.get(source);
    if (!state) {
      state = { bytes: 0, paused: false, byDestination: new Map() };
      this.sources.set(source, state);
    }
    state.bytes += bytes;
    state.byDestination.set(destination, (state.byDestination.get(destination) ?? 0) + bytes);
    if (!state.paused && state.bytes > this.marks.highWaterBytes) {
      state.paused = true;
      this.pauseCount++;
      source.pauseReading();
      this.events.paused(source, state.bytes);
    }
    const held = state;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      // A link closed since: its bytes were released then.
      if (this.sources.get(source) !== held) return;
      const pending = held.byDestination.get(destination);
      if (pending === undefined) return;
      const left = pending - bytes;
      if (left > 0) held.byDestination.set(destination, left);
      else held.byDestination.delete(destination);
      this.release(source, held, bytes);
    };
  }

  /** A link closed: it is read no more, and what was written to it will never be taken. */
  linkClosed(link: object): void {
    this.sources.delete(link as PausableLink);
    for (const [source, state] of this.sources) {
      const pending = state.byDestination.get(link);
      if (pending === undefined) continue;
      state.byDestination.delete(link);
      this.release(source, state, pending);
    }
  }

  /** Bytes forwarded from `source` not yet taken. */
  queuedFrom(source: PausableLink): number {
    return this.sources.get(source)?.bytes ?? 0;
  }

  isPaused(source: PausableLink): boolean {
    return this.sources.get(source)?.paused ?? false;
  }

  /** Times a link was paused since the router started. */
  get pauses(): number {
    return this.pauseCount;
  }

  private release(source: PausableLink, state: SourceState, bytes: number): void {
    state.bytes -= bytes;
    if (state.paused && state.bytes <= this.marks.lowWaterBytes) {
      state.paused = false;
      source.resumeReading();
      this.events.resumed(source, state.bytes);
    }
    if (!state.paused && state.bytes === 0) this.sources.delete(source);
  }
}
