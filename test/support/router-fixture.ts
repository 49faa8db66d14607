// Runs `./edgeward router ...` as a user would, for cross-process router tests: commands that finish (validate,
// enroll) with a time limit, and `router run` as a child whose JSON log lines (stderr) can be waited for and which is
// stopped with SIGTERM (SIGKILL if it does not exit in time).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const edgewardBin = fileURLToPath(new URL('../../edgeward', import.meta.url));

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runEdgeward(args: readonly string[], timeoutMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(edgewardBin, [...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`edgeward ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export type LogLine = Record<string, unknown>;

export class RouterRun {
  readonly lines: LogLine[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  private constructor(readonly child: ChildProcess) {
    let partial = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      this.stderr += text;
      partial += text;
      const complete = partial.split('\n');
      partial = complete.pop()!;
      for (const raw of complete) {
        let line: LogLine;
        try {
          line = JSON.parse(raw) as LogLine;
        } catch {
          continue;
        }
        this.lines.push(line);
        for (const waiter of [...this.waiters]) {
          if (waiter.match(line)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(configFile: string, env: NodeJS.ProcessEnv = {}): RouterRun {
    const child = spawn(edgewardBin, ['router', 'run', configFile], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    return new RouterRun(child);
  }

  /** The first log line (already written or still to come) that matches. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs = 20_000, what = 'a log line'): Promise<LogLine> {
    const found = this.lines.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`router: no ${what} within ${timeoutMs} ms; log:\n${this.stderr.slice(-4000)}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with the exit code (null when killed). */
  stop(timeoutMs = 15_000): Promise<number | null> {
    return stopChild(this.child, this.exited, timeoutMs);
  }
}

/** SIGTERM to a child process, then SIGKILL after `timeoutMs`; resolves with its exit code (null when killed). */
export async function stopChild(child: ChildProcess, exited: Promise<number | null>, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}
