// Keeps one child process running the way systemd's Restart=on-failure does: when it exits on its own with a
// non-zero code or a signal it is started again after a short delay; a clean exit (code 0) is left alone. Too many
// restarts within the interval (StartLimitBurst / StartLimitIntervalSec) make the supervisor give up.
import type { ChildProcess } from 'node:child_process';
import { waitForExit } from './child-process.ts';

export interface SupervisorOptions {
  /** Used in log lines: "controller ctrl2". */
  readonly name: string;
  readonly spawn: () => ChildProcess;
  readonly log: (line: string) => void;
  /** Where to look when it fails, named in the log lines. */
  readonly logFile?: string;
  /** Called after every start, including restarts, with the new process. */
  readonly onStart?: (child: ChildProcess, restarted: boolean) => void;
  /** Called once when the restart limit is hit; the process is then left down. */
  readonly onGiveUp?: (reason: string) => void;
  /** Called when the process exits cleanly on its own and is therefore not restarted. */
  readonly onCleanExit?: () => void;
  readonly restartDelayMs?: number;
  readonly maxRestarts?: number;
  readonly intervalMs?: number;
}

export class Supervisor {
  private current: ChildProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartTimes: number[] = [];
  private stopping = false;
  private failure: string | undefined;
  private restarted = 0;

  constructor(private readonly options: SupervisorOptions) {}

  get child(): ChildProcess | undefined {
    return this.current;
  }

  /** Why the supervisor gave up, once it has. */
  get failed(): string | undefined {
    return this.failure;
  }

  /** How many times the process was restarted. */
  get restarts(): number {
    return this.restarted;
  }

  /** The process is running, or a restart of it is pending. */
  get up(): boolean {
    return !this.stopping && this.failure === undefined && (this.restartTimer !== undefined || isRunning(this.current));
  }

  start(): void {
    if (this.current || this.stopping) throw new Error(`${this.options.name} is already started`);
    this.launch(false);
  }

  /** SIGTERM, then SIGKILL after graceMs; true when the process had to be killed. */
  async stop(graceMs = 15_000): Promise<boolean> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const child = this.current;
    if (!child || !isRunning(child)) return false;
    child.kill('SIGTERM');
    if (await waitForExit(child, graceMs)) return false;
    this.options.log(`${this.options.name} did not stop within ${Math.round(graceMs / 1000)} s of SIGTERM; sending SIGKILL`);
    child.kill('SIGKILL');
    await waitForExit(child, 10_000);
    return true;
  }

  private launch(restarted: boolean): void {
    let child: ChildProcess;
    try {
      child = this.options.spawn();
    } catch (error) {
      this.current = undefined;
      this.exited(undefined, `could not be started: ${(error as Error).message}`);
      return;
    }
    this.current = child;
    let done = false;
    const onExit = (reason: string) => {
      if (done) return;
      done = true;
      this.exited(child, reason);
    };
    child.once('exit', (code, signal) => {
      if (signal === null && code === 0) {
        if (done) return;
        done = true;
        if (this.stopping || child !== this.current) return;
        this.options.log(`${this.options.name} exited cleanly on its own (code 0); not restarting it`);
        this.options.onCleanExit?.();
        return;
      }
      onExit(signal !== null ? `signal ${signal}` : `code ${code}`);
    });
    // A process that could not be spawned at all reports only an error, never an exit.
    child.once('error', (error) => {
      if (child.pid === undefined) onExit(`could not be started: ${error.message}`);
    });
    if (child.pid !== undefined) this.options.onStart?.(child, restarted);
  }

  private exited(child: ChildProcess | undefined, reason: string): void {
    if (this.stopping || child !== this.current || this.failure !== undefined) return;
    const { maxRestarts = 5, intervalMs = 60_000, restartDelayMs = 1000 } = this.options;
    const now = Date.now();
    this.restartTimes = this.restartTimes.filter((time) => now - time < intervalMs);
    const see = this.options.logFile ? `; see ${this.options.logFile}` : '';
    if (this.restartTimes.length >= maxRestarts) {
      this.failure = `${this.options.name} exited (${reason}) after ${maxRestarts} restarts within ${Math.round(intervalMs / 1000)} s; giving up${see}`;
      this.options.log(this.failure);
      this.options.onGiveUp?.(this.failure);
      return;
    }
    this.restartTimes.push(now);
    this.options.log(
      `${this.options.name} exited (${reason}); restarting it in ${restartDelayMs / 1000} s (restart ${this.restartTimes.length} of at most ${maxRestarts} within ${Math.round(intervalMs / 1000)} s)${see}`,
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.restarted += 1;
      this.launch(true);
      if (this.current?.pid !== undefined) this.options.log(`${this.options.name} restarted (pid ${this.current.pid})`);
    }, restartDelayMs);
  }
}

function isRunning(child: ChildProcess | undefined): child is ChildProcess {
  return child !== undefined && child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}
