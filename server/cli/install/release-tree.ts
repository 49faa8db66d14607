// A release tree: everything ./edgeward install lays out under PREFIX, and what ./edgeward pack puts in its tarball.
// Built from a checkout: the compiled JavaScript (tsc -p tsconfig.build.json, imports rewritten to .js) under lib/,
// the status page's build (dashboard/.next, without its cache) beside it, the production npm packages copied from the
// checkout's node_modules (no tsx, no typescript, no build-only compiler), the unit files and example configs, the
// generated Prometheus rules and Alertmanager routing, the Grafana dashboards, the docs, and the `edgeward` launcher.
// A release runs only `node lib/server/cli/main.js`; the TypeScript toolchain is never needed on the host.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { heapGrowingFlag, semiSpaceFlag, shellPoolSize } from '../node-flags.ts';
import { productionPackages, type PackageLock } from './production-packages.ts';

const run = promisify(execFile);

/** Packages a release never loads: the TypeScript loader and compiler, and Next's compiler (the page ships built). */
export const excludedPackages: readonly string[] = ['tsx', 'typescript'];
const excludedPackagePattern = /^node_modules\/@next\/swc-/;

/** The folder that holds this file's checkout or release: the checkout's root, or the release tree (lib/'s parent). */
export function sourceRoot(): { kind: 'checkout' | 'release'; dir: string } {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const checkout = join(here, '..', '..', '..');
  if (existsSync(join(checkout, 'tsconfig.build.json')) && existsSync(join(checkout, 'server', 'cli', 'main.ts'))) return { kind: 'checkout', dir: checkout };
  return { kind: 'release', dir: join(here, '..', '..', '..', '..') };
}

/** Entries of a release tree, relative to it. */
export const releasePaths = {
  launcher: 'edgeward',
  lib: 'lib',
  main: join('lib', 'server', 'cli', 'main.js'),
  pageBuild: join('lib', 'dashboard', '.next'),
  systemd: join('share', 'systemd'),
  prometheus: join('share', 'prometheus'),
  alertmanager: join('share', 'alertmanager'),
  grafana: join('share', 'grafana'),
  docs: 'docs',
  nodeModules: 'node_modules',
  stamp: 'RELEASE.json',
} as const;

export interface ReleaseStamp {
  readonly version: string;
  readonly builtAt: string;
  readonly sourceTime: number;
  /** The fingerprint of the source files' names (checkoutSources). */
  readonly sourceNames?: string;
}

/** Build outputs and scratch that live beside the sources but are not sources: other processes (the status page's
 * own build, a test) write them at any time, and counting them would make a current release look stale. */
function notSource(name: string): boolean {
  return name === 'node_modules' || name === 'cache' || name === '.next' || name === '.next-build.lock' || name === 'next-env.d.ts' || name.endsWith('.test.ts');
}

/** Every source file under `path` (relative to `base`) with its modification time. Directory times are not used: a
 * lock or build output created and removed inside a folder changes its time, not its sources. */
function collectSources(base: string, path: string, out: Map<string, number>): void {
  let info;
  try {
    info = statSync(join(base, path));
  } catch {
    return;
  }
  if (!info.isDirectory()) {
    out.set(path, info.mtimeMs);
    return;
  }
  for (const name of readdirSync(join(base, path)).sort()) if (!notSource(name)) collectSources(base, join(path, name), out);
}

/** The checkout's files that go into a release: the newest modification time, and a fingerprint of their names (a
 * file removed or renamed changes it, though no time moves forward). */
export function checkoutSources(repo: string): { time: number; names: string } {
  const files = new Map<string, number>();
  for (const entry of ['server', 'router', 'common', 'sdk', 'tunnel', 'alerts', 'grafana', 'dashboard', 'docs', 'systemd', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
    collectSources(repo, entry, files);
  }
  const names = createHash('sha256').update([...files.keys()].join('\n')).digest('hex').slice(0, 32);
  return { time: Math.max(0, ...files.values()), names };
}

export function readStamp(tree: string): ReleaseStamp | undefined {
  try {
    return JSON.parse(readFileSync(join(tree, releasePaths.stamp), 'utf8')) as ReleaseStamp;
  } catch {
    return undefined;
  }
}

/** The launcher: `node <its folder>/lib/server/cli/main.js`, with the flags a controller must start with. */
export function launcherText(): string {
  return `#!/bin/sh
# edgeward release launcher: runs the compiled JavaScript with the node on PATH (Node.js 20.20+ or 22+).
set -e
dir="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"
if [ "\${1:-}" = controller ] && [ "\${2:-}" = run ]; then
  ${shellPoolSize}
  exec node --enable-source-maps ${semiSpaceFlag} ${heapGrowingFlag} --v8-pool-size="$pool" "$dir/${releasePaths.main}" "$@"
fi
exec node --enable-source-maps "$dir/${releasePaths.main}" "$@"
`;
}

/**
 * Builds the release tree of the checkout `repo` into `out` (replaced), unless `out` already holds a build of the
 * same sources. Returns whether it built.
 */
export async function buildReleaseTree(repo: string, out: string, log: (line: string) => void): Promise<{ built: boolean; ms: number }> {
  const started = Date.now();
  const sources = checkoutSources(repo);
  const sourceTime = sources.time;
  const stamp = readStamp(out);
  if (stamp && stamp.sourceTime >= sourceTime && stamp.sourceNames === sources.names) return { built: false, ms: Date.now() - started };
  const packageJson = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { name: string; version: string; engines?: unknown };
  const staging = `${out}.staging`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });

  log('compiling TypeScript (tsc -p tsconfig.build.json)');
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '-p', join(repo, 'tsconfig.build.json'), '--outDir', join(staging, releasePaths.lib)], { cwd: repo, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; message: string };
    throw new Error(`tsc failed:\n${failed.stdout ?? failed.message}`);
  }
  // version-info.ts reads ../../package.json from lib/common/version: the release's own, which also makes lib/ ES modules.
  writeFileSync(join(staging, 'lib', 'package.json'), `${JSON.stringify({ name: packageJson.name, version: packageJson.version, private: true, type: 'module', engines: packageJson.engines }, null, 2)}\n`);

  log('building the status page if its build is stale (next build)');
  const { ensureBuilt } = await import('../../../dashboard/page-server/next-app.ts');
  const { createJsonLogger } = await import('../../../common/log/logger.ts');
  await ensureBuilt(createJsonLogger({ sink: () => undefined, level: 'error' }), (text) => log(`status page: ${text}`));
  cpSync(join(repo, 'dashboard', '.next'), join(staging, releasePaths.pageBuild), {
    recursive: true,
    filter: (source) => !/[/\\]\.next[/\\](cache|trace|trace-build|diagnostics|types)$/.test(source),
  });
  cpSync(join(repo, 'dashboard', 'next.config.mjs'), join(staging, 'lib', 'dashboard', 'next.config.mjs'));

  log('copying the production npm packages');
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as PackageLock;
  let copied = 0;
  for (const key of productionPackages(lock, excludedPackages)) {
    if (excludedPackagePattern.test(key)) continue;
    const from = join(repo, key);
    // Optional packages for other platforms are in the lock but not installed.
    if (!existsSync(from)) continue;
    cpSync(from, join(staging, key), { recursive: true, preserveTimestamps: true, filter: (source) => source === from || !source.startsWith(join(from, 'node_modules')) });
    copied++;
  }
  log(`copied ${copied} npm packages`);

  cpSync(join(repo, 'systemd'), join(staging, releasePaths.systemd), { recursive: true, filter: (source) => !source.endsWith('README.md') });
  mkdirSync(join(staging, releasePaths.docs));
  for (const name of readdirSync(join(repo, 'docs'))) if (name.endsWith('.md')) cpSync(join(repo, 'docs', name), join(staging, releasePaths.docs, name));
  cpSync(join(repo, 'systemd', 'README.md'), join(staging, releasePaths.docs, 'systemd.md'));
  const { writeGeneratedConfigs } = await import('./generated-configs.ts');
  await writeGeneratedConfigs(staging);
  writeFileSync(join(staging, releasePaths.launcher), launcherText());
  chmodSync(join(staging, releasePaths.launcher), 0o755);
  const result: ReleaseStamp = { version: `v${packageJson.version}`, builtAt: new Date().toISOString(), sourceTime, sourceNames: sources.names };
  writeFileSync(join(staging, releasePaths.stamp), `${JSON.stringify(result, null, 2)}\n`);
  rmSync(out, { recursive: true, force: true });
  const { renameSync } = await import('node:fs');
  renameSync(staging, out);
  return { built: true, ms: Date.now() - started };
}
