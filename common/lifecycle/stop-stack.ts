// One stack of things to stop. A start sequence pushes each part as it comes up; stopping runs them last-first, so a
// failed start and a normal close release the same parts in the same order, and nothing started is forgotten.
export type StopFn = () => void | Promise<void>;

/** Told of a part that failed to stop; with one, stopAll() reports failures here and resolves. */
export type StopFailureReporter = (part: string, error: unknown) => void;

export class StopStack {
  private readonly parts: Array<{ readonly name: string; readonly stop: StopFn }> = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly reportFailure?: StopFailureReporter) {}

  /** Adds a part to stop before every part pushed earlier. */
  push(name: string, stop: StopFn): void {
    if (this.stopping) throw new Error(`cannot add ${name}: already stopping`);
    this.parts.push({ name, stop });
  }

  /** The parts' names, first pushed first (for logs and tests). */
  names(): string[] {
    return this.parts.map((part) => part.name);
  }

  /**
   * Stops every part, last pushed first, each after the one before it finished. A part that fails does not keep the
   * others running: all are stopped, then the first failure is thrown, naming its part (or, with a reporter, each
   * failure is reported and nothing thrown). Runs once; later calls share the first call's outcome.
   */
  stopAll(): Promise<void> {
    this.stopping ??= this.unwind();
    return this.stopping;
  }

  /**
   * Runs a start step; if it throws, stops everything pushed so far and throws the step's error (the one that
   * explains the failed start), so a process that failed to start leaves no port, timer or lock behind.
   */
  async starting<T>(step: () => Promise<T> | T): Promise<T> {
    try {
      return await step();
    } catch (error) {
      await this.stopAll().catch(() => undefined);
      throw error;
    }
  }

  private async unwind(): Promise<void> {
    let first: Error | undefined;
    for (const { name, stop } of [...this.parts].reverse()) {
      try {
        await stop();
      } catch (error) {
        if (this.reportFailure) this.reportFailure(name, error);
        else first ??= new Error(`${name} did not stop cleanly: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }
    }
    if (first) throw first;
  }
}
