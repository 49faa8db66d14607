// Debian's Prometheus tools, as the tests run them: promtool and amtool to check generated files, and a real
// Alertmanager on a free port. `./edgeward test` installs them (packages prometheus and prometheus-alertmanager);
// a test that needs one fails when it is missing, it never skips.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export const promtool = '/usr/bin/promtool';
export const amtool = '/usr/bin/amtool';
export const alertmanagerBinary = '/usr/bin/prometheus-alertmanager';
export const prometheusBinary = '/usr/bin/prometheus';

const packages: Record<string, string> = {
  [promtool]: 'prometheus',
  [prometheusBinary]: 'prometheus',
  [amtool]: 'prometheus-alertmanager',
  [alertmanagerBinary]: 'prometheus-alertmanager',
};

/** Fails the test when the tool is not installed. */
export function requireTool(path: string): void {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    assert.fail(`${path} is not installed: install the Debian package ${packages[path] ?? path} (./edgeward test does)`);
  }
}

export interface ToolRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a tool to completion (at most `timeoutMs`) and gives its exit code and output, whatever the code. */
export function runToolForCode(path: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<ToolRun> {
  requireTool(path);
  return new Promise((resolve, reject) => {
    execFile(path, [...args], { cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(new Error(`${path} ${args.join(' ')} did not run: ${error.message}`));
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

export interface AlertmanagerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts Alertmanager with a config file, clustering off, its data in a temporary folder; waits until ready. */
export async function startAlertmanager(configFile: string): Promise<AlertmanagerProcess> {
  requireTool(alertmanagerBinary);
  const storage = mkdtempSync(join(tmpdir(), 'edgeward-alertmanager-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(
    alertmanagerBinary,
    [`--config.file=${configFile}`, `--storage.path=${storage}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=info'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(storage, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Alertmanager exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/-/ready`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Alertmanager was not ready within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, output: () => output, stop };
}

/** `promtool check metrics` on an exposition: fails the test on any error or remark. */
export async function promtoolAccepts(text: string): Promise<void> {
  requireTool(promtool);
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(promtool, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    child.stdin.end(text);
  });
  assert.equal(result.code, 0, `promtool check metrics:\n${result.output}`);
  assert.equal(result.output.trim(), '', `promtool has remarks:\n${result.output}`);
}
