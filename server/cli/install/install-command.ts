// `./edgeward install|uninstall|pack`: lays a release out on a host (or under --root), removes it again, and makes a
// release tarball that installs the same way on a machine with only Node.js. From a checkout the release tree is
// built first (release-tree.ts, cached in .build/release); from an unpacked release (its install.sh, or the installed
// launcher) the tree it runs from is the release.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { commandLineOf, parseCommand, reportOutcome, type CommandLine, type CommandNode } from '../../../common/cli/command-line.ts';
import { applyLayout, defaultPrefix, manifestName, removeLayout, type InstallReport } from './install-layout.ts';
import { restrictControllerKeys } from './key-permissions.ts';
import { buildReleaseTree, readStamp, sourceRoot } from './release-tree.ts';

export interface InstallIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const installUsage = `Usage: ./edgeward install [--root <dir>] [--prefix <dir>] [--no-loopback-monitoring]

Lays out the compiled release under PREFIX (default ${defaultPrefix}): the JavaScript, its production npm packages
and the built status page, with the launcher PREFIX/edgeward; the units edgeward-controller@, edgeward-router@,
edgeward-alerts and edgeward-dashboard in /etc/systemd/system; sysusers.d and tmpfiles.d files; example configs in
/etc/edgeward (and the Prometheus and Alertmanager files Debian's services read, where none exist yet), and drop-ins
that bind Debian's Prometheus and Alertmanager to loopback (127.0.0.1:9090, 127.0.0.1:9093, no cluster port). Configs an
operator edited are kept and listed; a second install of the same release changes nothing. Writes PREFIX/${manifestName}.
As root on / it also runs systemd-sysusers, systemd-tmpfiles and systemctl daemon-reload; with --root it does not.
From a checkout it builds the release first (tsc, next build when stale). docs/install.md.

  --root <dir>     lay out under <dir> instead of / (a package build, an image, a test)
  --prefix <dir>   where the release goes (default ${defaultPrefix}); the units are rewritten to match
  --no-loopback-monitoring  leave Prometheus and Alertmanager listening as Debian has them (all addresses): no
                   drop-ins, and unedited ones of an earlier install are removed
`;

const uninstallUsage = `Usage: ./edgeward uninstall [--root <dir>] [--prefix <dir>] [--purge]

Removes exactly what PREFIX/${manifestName} lists. Configs an operator edited, /var/lib/edgeward and /var/log/edgeward
are kept unless --purge. Stop the services first.
`;

const packUsage = `Usage: ./edgeward pack [--out <file.tar.gz>]

Makes a release tarball (default edgeward-<version>-linux.tar.gz): the compiled JavaScript, the production npm
packages, the built status page, the units and example configs, and install.sh, which runs 'edgeward install' with
the node on PATH (no TypeScript toolchain needed): tar xzf <file> && sudo ./edgeward-<version>/install.sh
`;

const rootFlags = [
  { name: 'root', kind: 'string' },
  { name: 'prefix', kind: 'string' },
] as const;

const absoluteCheck = (flags: { text(name: string): string | undefined }): string | undefined => {
  const prefix = flags.text('prefix');
  if (prefix !== undefined && !isAbsolute(prefix)) return `--prefix must be an absolute path, not '${prefix}'`;
  return undefined;
};

const installTree: CommandNode = { usage: installUsage, flags: [...rootFlags, { name: 'no-loopback-monitoring', kind: 'boolean' }], arguments: [], min: 0, max: 0, example: ['--root', '/tmp/root'], check: ({ flags }) => absoluteCheck(flags) };
const uninstallTree: CommandNode = { usage: uninstallUsage, flags: [...rootFlags, { name: 'purge', kind: 'boolean' }], arguments: [], min: 0, max: 0, example: ['--root', '/tmp/root', '--purge'], check: ({ flags }) => absoluteCheck(flags) };
const packTree: CommandNode = { usage: packUsage, flags: [{ name: 'out', kind: 'string' }], arguments: [], min: 0, max: 0, example: ['--out', '/tmp/edgeward.tar.gz'] };

export const installCommandLine: CommandLine = commandLineOf('install', installTree);
export const uninstallCommandLine: CommandLine = commandLineOf('uninstall', uninstallTree);
export const packCommandLine: CommandLine = commandLineOf('pack', packTree);

/** The release tree to install from: the one this code runs from, or the checkout's (built when stale). */
async function releaseTree(io: InstallIo): Promise<string> {
  const source = sourceRoot();
  if (source.kind === 'release') return source.dir;
  const out = join(source.dir, '.build', 'release');
  const result = await buildReleaseTree(source.dir, out, (line) => io.stdout(`build: ${line}\n`));
  io.stdout(result.built ? `build: release tree built in ${(result.ms / 1000).toFixed(1)} s (${out})\n` : `build: release tree is current (${out})\n`);
  return out;
}

function onRealHost(root: string): boolean {
  return resolve(root) === '/' && process.getuid?.() === 0;
}

function runStep(io: InstallIo, file: string, args: string[]): void {
  const result = spawnSync(file, args, { encoding: 'utf8' });
  if (result.error || result.status !== 0) io.stderr(`warning: ${file} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr.trim()}\n`);
  else io.stdout(`ran ${file} ${args.join(' ')}\n`);
}

function pkiSteps(prefix: string): string {
  const e = `${prefix}/edgeward`;
  return `Next steps (docs/install.md):
  1. PKI, on an administration machine (the CA keys stay there):
       ${e} pki init --dir /root/edgeward-pki --trust-domain example.com
       ${e} pki controller --dir /root/edgeward-pki --id ctrl1 --dns ctrl1.example.com --ip 192.0.2.10
     then install /root/edgeward-pki/controllers/ctrl1/chain.pem as /etc/edgeward/pki/ctrl1.chain.pem (0644),
     key.pem as /etc/edgeward/pki/ctrl1.key.pem (0640 root:edgeward-controller) and ca-bundle.pem as /etc/edgeward/pki/ca-bundle.pem (0644).
  2. Edit /etc/edgeward/controller/ctrl1.yml, then: systemctl enable --now edgeward-controller@ctrl1
  3. ${e} agent controller init --username admin --password-file <file> --socket /run/edgeward/ctrl1/agent.sock
  4. Routers: create one with '${e} edge create edge-router router1', enroll it as the service user
       sudo -u edgeward-router ${e} router enroll /etc/edgeward/router/router1.yml --jwt router1.jwt
     and systemctl enable --now edgeward-router@router1
  5. systemctl enable --now edgeward-alerts edgeward-dashboard; restart prometheus and prometheus-alertmanager.
`;
}

function reportInstall(report: InstallReport, root: string, prefix: string, io: InstallIo): void {
  const where = resolve(root) === '/' ? prefix : join(root, prefix);
  io.stdout(`installed edgeward ${report.manifest.version} into ${where}: ${report.written.length} file(s) written, ${report.unchanged} unchanged, ${report.removed.length} removed (manifest ${join(where, manifestName)})\n`);
  if (report.written.length === 0 && report.removed.length === 0) io.stdout('nothing changed: this release was already installed\n');
  for (const path of report.keptEdited) io.stdout(`kept ${path}: edited by the operator (the release's version is in ${prefix}/share)\n`);
  for (const path of ['/etc/prometheus/prometheus.yml', '/etc/prometheus/alertmanager.yml']) {
    const ours = report.manifest.files.some((entry) => entry.path === path);
    if (!ours && existsSync(join(root, path))) {
      io.stdout(`left ${path} as it is: merge /etc/edgeward/${path.endsWith('alertmanager.yml') ? 'alertmanager/alertmanager.yml' : 'prometheus/prometheus.yml'} into it (docs/install.md)\n`);
    }
  }
}

export async function runInstallCommand(args: string[], io: InstallIo): Promise<number> {
  const outcome = parseCommand('install', installTree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const root = resolve(outcome.value.flags.text('root') ?? '/');
  const prefix = outcome.value.flags.text('prefix') ?? defaultPrefix;
  try {
    const tree = await releaseTree(io);
    const version = readStamp(tree)?.version ?? 'unknown';
    const report = applyLayout(tree, root, prefix, version, { loopbackMonitoring: outcome.value.flags.bool('no-loopback-monitoring') !== true });
    reportInstall(report, root, prefix, io);
    if (onRealHost(root)) {
      runStep(io, 'systemd-sysusers', ['edgeward.conf']);
      runStep(io, 'systemd-tmpfiles', ['--create', 'edgeward.conf']);
      const groupId = (name: string) => Number(execFileSync('getent', ['group', name], { encoding: 'utf8' }).split(':')[2]);
      try {
        for (const path of restrictControllerKeys('/', groupId('edgeward'), groupId('edgeward-controller'))) io.stdout(`gave ${path} to group edgeward-controller (0640): only the controllers read it\n`);
      } catch (error) {
        io.stderr(`warning: cannot give the keys in /etc/edgeward/pki to group edgeward-controller: ${(error as Error).message}\n`);
      }
      for (const entry of report.manifest.files) {
        // The controllers' configs to group edgeward-controller (the controller's unit alone), the others' to edgeward.
        const group = entry.path.startsWith('/etc/edgeward/controller/') ? 'edgeward-controller' : 'edgeward';
        if (entry.kind === 'config' && (entry.path.startsWith('/etc/edgeward/controller/') || entry.path.startsWith('/etc/edgeward/router/') || entry.path === '/etc/edgeward/alerts.yml' || entry.path === '/etc/edgeward/dashboard.yml')) {
          try {
            const gid = Number(execFileSync('getent', ['group', group], { encoding: 'utf8' }).split(':')[2]);
            chownSync(entry.path, 0, gid);
          } catch (error) {
            io.stderr(`warning: cannot give group ${group} ${entry.path}: ${(error as Error).message}\n`);
          }
        }
      }
      if (existsSync('/run/systemd/system')) runStep(io, 'systemctl', ['daemon-reload']);
    } else if (resolve(root) !== '/') {
      io.stdout(`--root: systemd-sysusers, systemd-tmpfiles and systemctl daemon-reload were not run\n`);
    }
    io.stdout(pkiSteps(prefix));
    return 0;
  } catch (error) {
    io.stderr(`error: install failed: ${(error as Error).message}\n`);
    return 1;
  }
}

export async function runUninstallCommand(args: string[], io: InstallIo): Promise<number> {
  const outcome = parseCommand('uninstall', uninstallTree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  const root = resolve(outcome.value.flags.text('root') ?? '/');
  const prefix = outcome.value.flags.text('prefix') ?? defaultPrefix;
  try {
    const report = removeLayout(root, prefix, outcome.value.flags.bool('purge') === true);
    io.stdout(`removed ${report.removed} file(s) of edgeward from ${resolve(root) === '/' ? prefix : join(root, prefix)}\n`);
    for (const path of report.keptEdited) io.stdout(`kept ${path}: edited by the operator (--purge removes it)\n`);
    for (const dir of report.purged) io.stdout(`purged ${dir}\n`);
    for (const dir of report.keptDirs) io.stdout(`kept ${dir}: not empty\n`);
    if (onRealHost(root) && existsSync('/run/systemd/system')) runStep(io, 'systemctl', ['daemon-reload']);
    return 0;
  } catch (error) {
    io.stderr(`error: uninstall failed: ${(error as Error).message}\n`);
    return 1;
  }
}

/** install.sh of a release tarball: `edgeward install` with the release's own code and the node on PATH. */
export const installScript = `#!/bin/sh
# Installs this edgeward release: sh install.sh [--root <dir>] [--prefix <dir>] (docs/install.md). Needs node on PATH.
set -e
dir="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"
exec "$dir/edgeward" install "$@"
`;

export async function runPackCommand(args: string[], io: InstallIo): Promise<number> {
  const outcome = parseCommand('pack', packTree, args);
  if (outcome.kind !== 'run') return reportOutcome(outcome, io);
  try {
    const tree = await releaseTree(io);
    const version = readStamp(tree)?.version ?? JSON.parse(readFileSync(join(tree, 'lib', 'package.json'), 'utf8')).version;
    const name = `edgeward-${version}`;
    const out = resolve(outcome.value.flags.text('out') ?? `${name}-linux.tar.gz`);
    // The tarball's one folder is the release tree under its versioned name, with install.sh beside the launcher.
    const staging = mkdtempSync(join(tmpdir(), 'edgeward-pack-'));
    try {
      writeFileSync(join(staging, 'install.sh'), installScript);
      chmodSync(join(staging, 'install.sh'), 0o755);
      const started = Date.now();
      const transform = ['--transform', `s|^\\./|${name}/|`, '--transform', `s|^install\\.sh$|${name}/install.sh|`];
      execFileSync('tar', ['-c', '-I', 'gzip -1', '-f', out, '--owner=0', '--group=0', '--numeric-owner', ...transform, '-C', tree, '.', '-C', staging, 'install.sh'], { stdio: ['ignore', 'ignore', 'pipe'] });
      io.stdout(`wrote ${out} (${name}/, ${(Date.now() - started) / 1000} s); install with: tar xzf ${basename(out)} && sudo ./${name}/install.sh\n`);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    return 0;
  } catch (error) {
    io.stderr(`error: pack failed: ${(error as Error).message}\n`);
    return 1;
  }
}

