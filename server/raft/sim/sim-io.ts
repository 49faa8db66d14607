// A simulated process's writes in flight to one file (the WAL, the snapshot directory, the model store). A write is
// issued, reaches the disk (`land`) and is then acknowledged to its writer, in issue order, when the simulation
// says (fsync latency). When the process crashes, the writes issued and not yet acknowledged reach the disk up to
// some point and the rest are lost: a record is whole or absent, as the WAL's checksummed records are after a torn
// write. Nobody hears back from a crashed process's writes.

/** A disk fault the simulation injected (a full disk, an I/O error): the node is expected to stop on it. */
export class InjectedDiskFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InjectedDiskFault';
  }
}

/** How an issued write ends, decided when it is issued. */
export interface WriteOutcome {
  /** Simulated time at which it may complete. */
  readonly due: number;
  /** It fails with this error; `lands` says whether the data reached the disk anyway (an EIO after a partial sync). */
  readonly failure?: { readonly error: Error; readonly lands: boolean };
}

interface PendingWrite {
  readonly outcome: WriteOutcome;
  readonly land: () => void;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export class SimIoQueue {
  private pending: PendingWrite[] = [];
  private crashed = false;

  issue(outcome: WriteOutcome, land: () => void): Promise<void> {
    if (this.crashed) return new Promise(() => undefined);
    return new Promise((resolve, reject) => this.pending.push({ outcome, land, resolve, reject }));
  }

  get length(): number {
    return this.pending.length;
  }

  /** Completes writes due by `now` from the head, in order, while `proceed` agrees; how many completed. */
  completeDue(now: number, proceed: () => boolean): number {
    let done = 0;
    while (this.pending.length > 0 && this.pending[0]!.outcome.due <= now && proceed()) {
      const write = this.pending.shift()!;
      done++;
      const { failure } = write.outcome;
      if (failure) {
        if (failure.lands) landQuietly(write);
        write.reject(failure.error);
        continue;
      }
      try {
        write.land();
        write.resolve();
      } catch (error) {
        write.reject(error as Error);
      }
    }
    return done;
  }

  /** The process died: the first `landed` writes in flight reached the disk, the rest are lost; how many were lost. */
  crash(landed: number): number {
    this.crashed = true;
    const reached = this.pending.slice(0, landed);
    const lost = this.pending.length - reached.length;
    this.pending = [];
    for (const write of reached) if (!write.outcome.failure || write.outcome.failure.lands) landQuietly(write);
    return lost;
  }
}

function landQuietly(write: PendingWrite): void {
  try {
    write.land();
  } catch {
    // A write the store would have refused changes nothing on disk.
  }
}
