// Runs the processes of an observability stack (server/demo/observability-stack.ts) for an end-to-end test:
// each started from its command and waited for until ready, stopped with SIGTERM (SIGKILL after 15 s), and all
// of them stopped at the end even when the test failed half-way.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnStackCommand, waitForStackReady, type StackCommand } from '../../server/demo/observability-stack.ts';
import { requireTool } from './prometheus-tools.ts';

export class StackProcesses {
  private readonly running = new Map<string, { command: StackCommand; child: ChildProcess }>();

  /** Starts the command and waits until it answers on its ready URL. */
  async start(command: StackCommand, timeoutMs = 60_000): Promise<ChildProcess> {
    if (command.file.startsWith('/usr/bin/')) requireTool(command.file);
    if (this.isRunning(command.name)) throw new Error(`${command.name} is already running`);
    const child = spawnStackCommand(command);
    this.running.set(command.name, { command, child });
    const alive = () => child.exitCode === null && child.signalCode === null;
    try {
      await waitForStackReady(command, alive, timeoutMs);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${command.logFile} ---\n${this.output(command.name).slice(-4000)}`);
    }
    return child;
  }

  isRunning(name: string): boolean {
    const child = this.running.get(name)?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  pid(name: string): number {
    const pid = this.running.get(name)?.child.pid;
    if (pid === undefined) throw new Error(`${name} was never started`);
    return pid;
  }

  /** What the process wrote to its log file (every start of it). */
  output(name: string): string {
    const entry = this.running.get(name);
    try {
      return entry ? readFileSync(entry.command.logFile, 'utf8') : '';
    } catch {
      return '';
    }
  }

  /** SIGTERM, then SIGKILL after 15 s; the exit code (null when killed by a signal). */
  async stop(name: string): Promise<number | null> {
    const entry = this.running.get(name);
    if (!entry) return null;
    const { child } = entry;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.stop(name)));
  }
}
