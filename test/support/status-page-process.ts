// The status page and the alerts daemon as real processes for the browser tests (`./edgeward dashboard run` and
// `./edgeward alerts run`, through the same entry point), and Debian's Chromium driven by playwright-core. Never a
// downloaded browser: /usr/bin/chromium, installed by `./edgeward test` (scripts/ensure-deps.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const cliEntry = fileURLToPath(new URL('../../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
export const chromiumPath = '/usr/bin/chromium';

/** Where the browser tests save their screenshots: test-artifacts/<name>/ in the repository (gitignored). */
export function artifactDir(name: string): string {
  const dir = fileURLToPath(new URL(`../../test-artifacts/${name}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: run ./edgeward test, which installs Debian's chromium`);
  return chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'], timeout: 60_000 });
}

/** An `./edgeward <args>` process, its output kept. */
export class EdgewardProcess {
  output = '';
  readonly child: ChildProcess;

  constructor(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, ['--import', tsxLoader, cliEntry, ...args], { env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until `url` answers 200 (the process may first build the page: allow minutes). */
  async ready(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.alive) throw new Error(`the process exited (${this.child.exitCode ?? this.child.signalCode}) before ${url} answered:\n${this.output.slice(-4000)}`);
      const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s:\n${this.output.slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** SIGTERM, SIGKILL after 15 s; resolves once it exited. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

export const screenshotPath = (dir: string, name: string) => join(dir, `${name}.png`);
