// The page itself is a Next.js app (dashboard/app, dashboard/components), served in production mode from this
// process: `next({ dev: false })` with its request handler behind our own routes. It is built with `next build` into
// dashboard/.next when that build is missing or older than the page's sources; the install step builds it ahead of
// time. Two processes never build at once: the builder holds dashboard/.next-build.lock (a directory, created
// atomically, holding its pid), and a process that finds it waits, then looks again. An installed release
// (./edgeward install, pack) ships the build without the page's sources and is never rebuilt: its directory is
// read-only to the service.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../common/log/logger.ts';

/** dashboard/, where the Next app lives. */
export const pageDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = join(pageDir, '..');
const nextBin = join(repoRoot, 'node_modules', 'next', 'dist', 'bin', 'next');
const buildIdFile = join(pageDir, '.next', 'BUILD_ID');
const lockDir = join(pageDir, '.next-build.lock');
/** What the page's bundle is made of: a change to any of these needs a new build. */
const sourceEntries = ['app', 'components', 'state', join('page-server', 'snapshot-registry.ts'), 'next.config.mjs', 'tsconfig.json'];
const buildLimitMs = 15 * 60_000;

/** Newest modification time among the page's sources and the installed packages (ms). */
export function newestSourceTime(): number {
  let newest = 0;
  const visit = (path: string) => {
    let info;
    try {
      info = statSync(path);
    } catch {
      return;
    }
    if (info.isDirectory()) {
      for (const name of readdirSync(path)) if (!name.startsWith('.') && !name.endsWith('.test.ts')) visit(join(path, name));
    } else {
      newest = Math.max(newest, info.mtimeMs);
    }
  };
  for (const entry of sourceEntries) visit(join(pageDir, entry));
  visit(join(repoRoot, 'package-lock.json'));
  return newest;
}

/** Whether this is an installed release: the page's sources are absent and its build is shipped as it is. */
export function isReleaseBuild(): boolean {
  return !existsSync(join(pageDir, 'app'));
}

/** Why the page must be built, or undefined when its build is current. */
export function buildNeeded(): string | undefined {
  if (isReleaseBuild()) return undefined;
  let built: number;
  try {
    built = statSync(buildIdFile).mtimeMs;
  } catch {
    return 'the page has not been built (no dashboard/.next/BUILD_ID)';
  }
  return newestSourceTime() > built ? 'the page\'s sources are newer than its build' : undefined;
}

/** Builds the page if needed (waiting for another process's build), and says how long it took. */
export async function ensureBuilt(logger: Logger, progress: (text: string) => void = () => undefined): Promise<{ built: boolean; ms: number }> {
  const started = Date.now();
  if (isReleaseBuild() && !existsSync(buildIdFile)) throw new Error(`this installation has no build of the status page (${buildIdFile}) and no sources to build it from: install the release again`);
  for (;;) {
    const reason = buildNeeded();
    if (reason === undefined) return { built: false, ms: Date.now() - started };
    if (takeLock()) {
      try {
        if (buildNeeded() === undefined) return { built: false, ms: Date.now() - started };
        progress(`building the status page with next build (${reason}); this takes a minute or so`);
        logger.info('building the status page', { reason, dir: pageDir });
        await runNextBuild();
        const ms = Date.now() - started;
        logger.info('status page built', { ms });
        return { built: true, ms };
      } finally {
        rmSync(lockDir, { recursive: true, force: true });
      }
    }
    if (Date.now() - started > buildLimitMs) throw new Error(`another process has been building the status page for ${buildLimitMs / 60_000} minutes (${lockDir})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function takeLock(): boolean {
  try {
    mkdirSync(lockDir);
    writeFileSync(join(lockDir, 'pid'), String(process.pid));
    return true;
  } catch {
    // A lock left by a builder that died is taken over.
    try {
      const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && !alive(pid)) {
        rmSync(lockDir, { recursive: true, force: true });
        return takeLock();
      }
    } catch {
      // The holder has not written its pid yet.
    }
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `next build dashboard`, telemetry off; its output is kept and shown only when it fails. */
export function runNextBuild(): Promise<void> {
  if (isReleaseBuild()) return Promise.reject(new Error('an installed release ships the status page built, without its sources: it cannot be built again here'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, 'build', pageDir], {
      cwd: repoRoot,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const limit = setTimeout(() => child.kill('SIGKILL'), buildLimitMs);
    child.on('error', (error) => {
      clearTimeout(limit);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      if (code === 0) resolve();
      else reject(new Error(`next build failed (${signal ?? `exit ${code}`}):\n${output.trim()}`));
    });
  });
}

export interface NextHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

/** The part of Next's custom-server API used here. */
interface NextServer {
  prepare(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  close(): Promise<void>;
}
type CreateNextServer = (options: { dev: boolean; dir: string; quiet: boolean }) => NextServer;

/** Loaded by name at run time: Next's own type declarations change Node's global types (process.env.NODE_ENV
 * becomes required), which must not leak into the rest of the repository's typecheck. */
const nextPackage = 'next';

/** Next in production mode, from the build in dashboard/.next. */
export async function startNext(): Promise<NextHandler> {
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  const loaded = (await import(nextPackage)) as { default: CreateNextServer | { default: CreateNextServer } };
  const next = typeof loaded.default === 'function' ? loaded.default : loaded.default.default;
  const app = next({ dev: false, dir: pageDir, quiet: true });
  await app.prepare();
  const handler = app.getRequestHandler();
  return {
    handle: (req, res) => handler(req, res),
    close: () => app.close(),
  };
}
