// Runs jobs one at a time per key, in the order they were asked for; one that fails does not stop the next. A key is
// forgotten once its last job settles, so the map holds only keys with work in flight.
export class KeyedSerialQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(job);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  /** Keys with a job queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
