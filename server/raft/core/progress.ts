// The leader's view of one follower: how much of the log it has (match), what to send next, and whether it is
// being probed for where its log diverges, replicated to in a pipeline, or sent a snapshot.

export type ProgressState = 'probe' | 'replicate' | 'snapshot';

export class Progress {
  match = 0;
  next: number;
  state: ProgressState = 'probe';
  /** In probe state, an append is outstanding: send no more until it is answered or a heartbeat reply comes. */
  probeSent = false;
  /** In snapshot state, the index of the snapshot being sent. */
  pendingSnapshot = 0;
  /** Ticks spent in the current state (a snapshot in flight that long is retried). */
  stateTicks = 0;
  /** Last indexes of appends in flight, oldest first (replicate state). */
  private readonly inflight: number[] = [];
  /** After a lost log: the commit index the follower is told to reach before it votes again (0: none). */
  refillTo = 0;
  /** Heard from since the last check-quorum round. */
  recentActive = false;

  constructor(
    next: number,
    private readonly maxInflight: number,
  ) {
    this.next = next;
  }

  becomeProbe(): void {
    // After a snapshot, resume right after it (or after what the follower is known to have).
    this.next = this.state === 'snapshot' ? Math.max(this.match + 1, this.pendingSnapshot + 1) : this.match + 1;
    this.reset('probe');
  }

  becomeReplicate(): void {
    this.next = this.match + 1;
    this.reset('replicate');
  }

  becomeSnapshot(index: number): void {
    this.reset('snapshot');
    this.pendingSnapshot = index;
  }

  /** A successful append reply for `index`; false when it tells us nothing new. */
  maybeUpdate(index: number): boolean {
    let updated = false;
    if (this.match < index) {
      this.match = index;
      updated = true;
      this.probeSent = false;
    }
    this.next = Math.max(this.next, index + 1);
    this.freeTo(index);
    return updated;
  }

  /**
   * A rejected append for `rejected` (its prevIndex), with the follower's hint of where to retry. False when the
   * rejection is stale (answers an append we already moved past).
   */
  maybeDecrTo(rejected: number, retryAt: number): boolean {
    if (this.state === 'replicate') {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, retryAt + 1), this.match + 1, 1);
    this.probeSent = false;
    return true;
  }

  /** The follower answered that its log ends at `holds`, below what it had acknowledged (it lost its log): nothing
   * it holds is vouched for any more (match 0, so no commit counts it until it answers again), and it is probed
   * from `holds`. Lowering match never undoes a commit; it only stops counting copies that are gone. */
  lostEntriesAfter(holds: number, refillTo: number): void {
    this.refillTo = refillTo;
    this.match = 0;
    this.next = holds + 1;
    this.reset('probe');
  }

  /** Records an append just sent whose last entry is `lastIndex`. */
  sentEntries(lastIndex: number, count: number): void {
    if (this.state === 'replicate') {
      if (count > 0) {
        this.next = lastIndex + 1;
        this.inflight.push(lastIndex);
      }
    } else if (this.state === 'probe') {
      this.probeSent = true;
    }
  }

  /** A heartbeat reply proves the follower is reachable: free one slot so a pipeline of lost appends unsticks. */
  freeFirstOne(): void {
    if (this.state === 'replicate' && this.inflight.length >= this.maxInflight) this.inflight.shift();
  }

  isPaused(): boolean {
    if (this.state === 'probe') return this.probeSent;
    if (this.state === 'snapshot') return true;
    return this.inflight.length >= this.maxInflight;
  }

  private freeTo(index: number): void {
    while (this.inflight.length > 0 && this.inflight[0]! <= index) this.inflight.shift();
  }

  private reset(state: ProgressState): void {
    this.state = state;
    this.probeSent = false;
    this.pendingSnapshot = 0;
    this.stateTicks = 0;
    this.inflight.length = 0;
  }
}
