// Runs an async task now and then every `interval` after the start of the previous run, never two at once.

export class IntervalTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly interval: number,
    private readonly task: () => Promise<void>,
  ) {}

  start(): void {
    this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private run(): void {
    if (this.stopped) return;
    const started = Date.now();
    this.running = this.task()
      .catch(() => undefined)
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        this.timer = setTimeout(() => this.run(), Math.max(0, this.interval - (Date.now() - started)));
      });
  }
}
