// What ./edgeward install lays out from a release tree, and how: the release under PREFIX (replaced file by file,
// unchanged files left alone), the units, sysusers and tmpfiles files (ours: replaced on every install; operators
// change units with drop-ins), and the configs under /etc (written when absent, replaced when the operator left our
// last version untouched, kept and reported when edited). A manifest records every file and folder it created, with
// the hash of each config as written, so a second install changes nothing and uninstall removes exactly that.
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { releasePaths } from './release-tree.ts';

export const defaultPrefix = '/opt/edgeward';
/** Written under ROOT/PREFIX. */
export const manifestName = 'MANIFEST.json';

export type EntryKind = 'code' | 'unit' | 'system' | 'config';

export interface ManifestEntry {
  /** The path on the host (ROOT left out). */
  readonly path: string;
  readonly kind: EntryKind;
  /** sha256 of a config as installed, to tell an operator's edit from our own file. */
  readonly sha256?: string;
}

export interface Manifest {
  readonly version: string;
  readonly prefix: string;
  readonly installedAt: string;
  readonly files: readonly ManifestEntry[];
  /** Folders the installs created (they did not exist before the first), deepest last. */
  readonly dirs: readonly string[];
}

interface PlannedFile {
  readonly from: string;
  readonly path: string;
  readonly kind: EntryKind;
  readonly mode: number;
  /** Text to write instead of copying `from` (a unit with another prefix). */
  readonly text?: string;
}

export interface InstallReport {
  readonly written: string[];
  readonly unchanged: number;
  readonly keptEdited: string[];
  readonly manifest: Manifest;
  readonly removed: string[];
}

const units = ['edgeward-controller@.service', 'edgeward-router@.service', 'edgeward-alerts.service', 'edgeward-dashboard.service'];

/** Config files: from the release tree to the host, and their modes. */
function configFiles(tree: string): PlannedFile[] {
  const share = (dir: string, name: string) => join(tree, dir, name);
  const config = (from: string, path: string, mode = 0o640): PlannedFile => ({ from, path, kind: 'config', mode });
  return [
    config(share(releasePaths.systemd, 'ctrl.example.yml'), '/etc/edgeward/controller/ctrl1.yml'),
    config(share(releasePaths.systemd, 'router.example.yml'), '/etc/edgeward/router/router1.yml'),
    config(share(releasePaths.systemd, 'alerts.example.yml'), '/etc/edgeward/alerts.yml'),
    config(share(releasePaths.systemd, 'dashboard.example.yml'), '/etc/edgeward/dashboard.yml'),
    config(share(releasePaths.prometheus, 'prometheus.yml'), '/etc/edgeward/prometheus/prometheus.yml', 0o644),
    config(share(releasePaths.prometheus, join('rules', 'edgeward-rules.yml')), '/etc/edgeward/prometheus/rules/edgeward-rules.yml', 0o644),
    config(share(releasePaths.alertmanager, 'alertmanager.yml'), '/etc/edgeward/alertmanager/alertmanager.yml', 0o644),
  ];
}

/** Drop-ins that bind Debian's Prometheus and Alertmanager to loopback (unless the install is told not to). */
export const loopbackDropIns = [
  { from: join(releasePaths.systemd, 'prometheus-loopback.conf'), path: '/etc/systemd/system/prometheus.service.d/edgeward-loopback.conf' },
  { from: join(releasePaths.systemd, 'alertmanager-loopback.conf'), path: '/etc/systemd/system/prometheus-alertmanager.service.d/edgeward-loopback.conf' },
] as const;

export interface LayoutOptions {
  /** Write loopbackDropIns (default true); false leaves Prometheus and Alertmanager listening as Debian has them. */
  readonly loopbackMonitoring?: boolean;
}

/** Debian's prometheus and prometheus-alertmanager read these; ours are written there only when they are absent. */
export const debianConfigs = [
  { from: join(releasePaths.prometheus, 'prometheus.yml'), path: '/etc/prometheus/prometheus.yml' },
  { from: join(releasePaths.alertmanager, 'alertmanager.yml'), path: '/etc/prometheus/alertmanager.yml' },
] as const;

function walkFiles(dir: string, base: string, out: string[]): void {
  for (const entry of readdirSync(join(base, dir), { withFileTypes: true })) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) walkFiles(rel, base, out);
    else if (entry.isFile()) out.push(rel);
    // Symbolic links (node_modules/.bin) are not part of a release.
  }
}

/** Every file of the layout, for the release tree `tree`, with the host paths under `prefix`. */
export function planLayout(tree: string, prefix: string, previous: Manifest | undefined, root: string, options: LayoutOptions = {}): PlannedFile[] {
  const code: string[] = [];
  walkFiles('.', tree, code);
  const planned: PlannedFile[] = code
    .map((rel) => rel.replace(/^\.\//, ''))
    .filter((rel) => rel !== 'install.sh')
    .map((rel) => {
      const mode = statSync(join(tree, rel)).mode & 0o777 & ~0o022;
      return { from: join(tree, rel), path: join(prefix, rel), kind: 'code' as const, mode: mode | 0o444 };
    });
  for (const unit of units) {
    const from = join(tree, releasePaths.systemd, unit);
    const text = readFileSync(from, 'utf8').replaceAll(defaultPrefix, prefix);
    planned.push({ from, path: `/etc/systemd/system/${unit}`, kind: 'unit', mode: 0o644, text });
  }
  planned.push({ from: join(tree, releasePaths.systemd, 'edgeward.sysusers.conf'), path: '/usr/lib/sysusers.d/edgeward.conf', kind: 'system', mode: 0o644 });
  planned.push({ from: join(tree, releasePaths.systemd, 'edgeward.tmpfiles.conf'), path: '/usr/lib/tmpfiles.d/edgeward.conf', kind: 'system', mode: 0o644 });
  planned.push(...configFiles(tree));
  // Configs like the others: kept when the operator edited them, removed (when unedited) by an install that opts out.
  if (options.loopbackMonitoring !== false) for (const dropIn of loopbackDropIns) planned.push({ from: join(tree, dropIn.from), path: dropIn.path, kind: 'config', mode: 0o644 });
  for (const debian of debianConfigs) {
    // Ours when we wrote it before; an operator's (or Debian's) file is never replaced.
    const ours = previous?.files.some((entry) => entry.path === debian.path);
    if (ours || !existsSync(join(root, debian.path))) planned.push({ from: join(tree, debian.from), path: debian.path, kind: 'config', mode: 0o644 });
  }
  return planned;
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function readManifest(root: string, prefix: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(root, prefix, manifestName), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Creates `dir` (under root) and its missing parents, recording the ones it created. */
function ensureDir(root: string, dir: string, created: string[], mode = 0o755): void {
  if (existsSync(join(root, dir))) return;
  // The root itself is made by the caller or exists: stop there rather than climb forever.
  if (dirname(dir) !== dir) ensureDir(root, dirname(dir), created, 0o755);
  mkdirSync(join(root, dir), { mode });
  chmodSync(join(root, dir), mode);
  created.push(dir);
}

/** Folders with a mode of their own (the rest are 0755). */
const dirModes: Readonly<Record<string, number>> = { '/etc/edgeward/controller': 0o750, '/etc/edgeward/router': 0o750 };

/** Lays out the release tree `tree` under root + prefix. Idempotent: a second run with the same tree writes nothing. */
export function applyLayout(tree: string, root: string, prefix: string, version: string, options: LayoutOptions = {}): InstallReport {
  const previous = readManifest(root, prefix);
  const previousHash = new Map((previous?.files ?? []).map((entry) => [entry.path, entry.sha256]));
  const planned = planLayout(tree, prefix, previous, root, options);
  const created = [...(previous?.dirs ?? [])];
  const written: string[] = [];
  const keptEdited: string[] = [];
  let unchanged = 0;
  const entries: ManifestEntry[] = [];
  for (const file of planned) {
    const target = join(root, file.path);
    ensureDir(root, dirname(file.path), created, dirModes[dirname(file.path)] ?? 0o755);
    const data = file.text !== undefined ? Buffer.from(file.text) : undefined;
    if (file.kind === 'config') {
      const ours = data ?? readFileSync(file.from);
      const hash = sha256(ours);
      if (existsSync(target)) {
        const current = sha256(readFileSync(target));
        const before = previousHash.get(file.path);
        if (current === hash) {
          unchanged++;
          entries.push({ path: file.path, kind: file.kind, sha256: hash });
          continue;
        }
        if (before === undefined || current !== before) {
          // The operator's file (edited, or there before us): kept, and still recorded as ours if it was.
          keptEdited.push(file.path);
          if (before !== undefined) entries.push({ path: file.path, kind: file.kind, sha256: before });
          continue;
        }
      }
      writeFileSync(target, ours, { mode: file.mode });
      chmodSync(target, file.mode);
      written.push(file.path);
      entries.push({ path: file.path, kind: file.kind, sha256: hash });
      continue;
    }
    entries.push({ path: file.path, kind: file.kind });
    if (data !== undefined) {
      if (existsSync(target) && readFileSync(target).equals(data)) {
        unchanged++;
        continue;
      }
      writeFileSync(target, data, { mode: file.mode });
      chmodSync(target, file.mode);
      written.push(file.path);
      continue;
    }
    const source = statSync(file.from);
    let same = false;
    try {
      const current = lstatSync(target);
      same = current.isFile() && current.size === source.size && Math.abs(current.mtimeMs - source.mtimeMs) < 1 && (current.mode & 0o777) === file.mode;
    } catch {
      same = false;
    }
    if (same) {
      unchanged++;
      continue;
    }
    rmSync(target, { force: true });
    copyFileSync(file.from, target);
    chmodSync(target, file.mode);
    utimesSync(target, source.mtimeMs / 1000, source.mtimeMs / 1000);
    written.push(file.path);
  }
  // Files of the previous install that this one no longer has (an upgrade that dropped them).
  const now = new Set(entries.map((entry) => entry.path));
  const removed: string[] = [];
  for (const old of previous?.files ?? []) {
    if (now.has(old.path)) continue;
    // A config this install no longer lays out (a drop-in opted out of) goes only while it is exactly ours.
    if (old.kind === 'config' && !(existsSync(join(root, old.path)) && sha256(readFileSync(join(root, old.path))) === old.sha256)) continue;
    rmSync(join(root, old.path), { force: true });
    removed.push(old.path);
  }
  const manifest: Manifest = { version, prefix, installedAt: previous && written.length === 0 && removed.length === 0 ? previous.installedAt : new Date().toISOString(), files: entries, dirs: created };
  const manifestText = `${JSON.stringify(manifest, null, 1)}\n`;
  const manifestPath = join(root, prefix, manifestName);
  if (!existsSync(manifestPath) || readFileSync(manifestPath, 'utf8') !== manifestText) writeFileSync(manifestPath, manifestText, { mode: 0o644 });
  return { written, unchanged, keptEdited, manifest, removed };
}

export interface UninstallReport {
  readonly removed: number;
  readonly keptEdited: string[];
  readonly keptDirs: string[];
  readonly purged: string[];
}

/** State and log folders: removed only with --purge. */
export const stateDirs = ['/var/lib/edgeward', '/var/log/edgeward'];

/** Removes what the manifest lists; edited configs and non-empty folders stay unless `purge`. */
export function removeLayout(root: string, prefix: string, purge: boolean): UninstallReport {
  const manifest = readManifest(root, prefix);
  if (!manifest) throw new Error(`no edgeward installation at ${join(root, prefix)} (no ${manifestName})`);
  let removed = 0;
  const keptEdited: string[] = [];
  for (const entry of manifest.files) {
    const target = join(root, entry.path);
    if (!existsSync(target)) continue;
    if (entry.kind === 'config' && !purge && entry.sha256 !== sha256(readFileSync(target))) {
      keptEdited.push(entry.path);
      continue;
    }
    rmSync(target, { force: true });
    removed++;
  }
  rmSync(join(root, prefix, manifestName), { force: true });
  const purged: string[] = [];
  if (purge) {
    for (const dir of stateDirs) {
      if (existsSync(join(root, dir))) {
        rmSync(join(root, dir), { recursive: true, force: true });
        purged.push(dir);
      }
    }
  }
  // Folders under the prefix that the release had (lib/…, node_modules/…) go when empty, then the ones we created.
  const keptDirs: string[] = [];
  const prefixDirs = new Set<string>();
  for (const entry of manifest.files) for (let dir = dirname(entry.path); dir.startsWith(`${manifest.prefix}/`); dir = dirname(dir)) prefixDirs.add(dir);
  const dirs = [...prefixDirs, ...manifest.dirs].sort((a, b) => b.length - a.length);
  for (const dir of new Set(dirs)) {
    const target = join(root, dir);
    if (!existsSync(target)) continue;
    if (readdirSync(target).length > 0) {
      if (manifest.dirs.includes(dir)) keptDirs.push(dir);
      continue;
    }
    rmdirSync(target);
  }
  return { removed, keptEdited, keptDirs: keptDirs.filter((dir) => existsSync(join(root, dir))), purged };
}
