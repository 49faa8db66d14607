// Runs a store's writes one at a time, in the order they were asked for; one that fails does not stop the next.
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const run = this.tail.then(job);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Settles once every job asked for so far has finished, whether or not it succeeded. */
  idle(): Promise<unknown> {
    return this.tail;
  }
}
