// The requests one end of a channel has sent and not yet had answered: each gets an id, a timeout and a promise;
// an answer settles it, a timeout or the channel closing rejects it. The ids are the caller's (numbers on the
// router's control channel, UUIDs between controllers).

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export interface RequestAnswer {
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

export class PendingRequests<Id> {
  private readonly pending = new Map<Id, Pending>();

  constructor(private readonly newId: () => Id) {}

  get size(): number {
    return this.pending.size;
  }

  /**
   * Opens a request: `send` gets its id and writes it (returning false when it could not, which rejects at once with
   * `unsent`); the promise settles with the answer, or rejects with `timeoutMessage` after `timeoutMs`.
   */
  open(timeoutMs: number, timeoutMessage: string, send: (id: Id) => boolean, unsent = 'the request could not be sent'): Promise<unknown> {
    const id = this.newId();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(timeoutMessage));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      if (!send(id)) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new Error(unsent));
      }
    });
  }

  /** An answer; one to no open request (late, or never ours) is ignored. `failed` words an answer without error. */
  answer(id: Id, answer: RequestAnswer, failed = 'request failed'): void {
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    if (answer.ok) waiting.resolve(answer.value);
    else waiting.reject(new Error(answer.error ?? failed));
  }

  /** Rejects every open request (the channel closed, or the process is stopping). */
  rejectAll(reason: string): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      this.pending.delete(id);
      waiting.reject(new Error(reason));
    }
  }
}
