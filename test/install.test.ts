// ./edgeward install, uninstall and pack, end to end: the release is laid out under a temporary root, every unit
// passes systemd-analyze verify with no warning, a second install changes nothing and keeps an edited config, then
// the controller, a router, the alerts daemon and the status page are started from their installed units' own
// ExecStart= and Environment= lines (paths moved under the root), as an unprivileged user, each with a notification
// socket that must receive READY=1 and WATCHDOG=1; each is seen healthy, then stopped (STOPPING=1, exit 0). Real
// systemd then boots the same units in a PID namespace where it can (the test records why where it cannot), and, from
// inside each running unit's own mount namespace and with its own user and groups, the router, the alerts daemon and
// the status page cannot read the controller's key, the enrollment signing key, its config or its state, which the
// controller itself reads.
// uninstall --purge leaves the root as it was before the install. The tarball of pack installs the same way with
// only Node.js.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { httpsJson } from '../server/demo/https-json.ts';
import { freePort } from './support/free-port.ts';
import { openNotifySocket, type NotifySocket } from './support/notify-socket.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const edgeward = join(repo, 'edgeward');
const prefix = '/opt/edgeward';
/** The unprivileged user the alerts daemon and status page run as here (the installed units say User=edgeward). */
const uid = 65534;
/** Group edgeward: every service's primary group. */
const gid = 65534;
/** User edgeward-controller (and its group, which alone reads the controller's keys and config). */
const controllerUid = 64901;
const controllerGid = 64901;
/** User edgeward-router. */
const routerUid = 64902;
/** User edgeward-dashboard. */
const dashboardUid = 64903;
/** Who each service runs as, as its unit says. */
const serviceUsers: Record<string, { uid: number; gid: number; groups: number[] }> = {
  controller: { uid: controllerUid, gid, groups: [gid, controllerGid] },
  router: { uid: routerUid, gid, groups: [gid] },
  alerts: { uid, gid, groups: [gid] },
  dashboard: { uid: dashboardUid, gid, groups: [gid] },
};
const setprivAs = (user: { uid: number; gid: number; groups: number[] }) => ['--reuid', String(user.uid), '--regid', String(user.gid), '--groups', user.groups.join(',')];
const units = ['edgeward-controller@.service', 'edgeward-router@.service', 'edgeward-alerts.service', 'edgeward-dashboard.service'];

const work = mkdtempSync(join(tmpdir(), 'edgeward-install-'));
const root = join(work, 'root');
const started: ChildProcess[] = [];
const sockets: NotifySocket[] = [];
let baseline: string[] = [];
/** The ports the services were given, for the systemd boot that reuses their configs. */
let ports: { web: number; health: number; alerts: number; page: number } | undefined;

function listTree(dir: string): string[] {
  const out: string[] = [];
  const visit = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      out.push(entry.isDirectory() ? `${path}/` : path);
      if (entry.isDirectory()) visit(path);
    }
  };
  visit('');
  return out.sort();
}

function runEdgeward(args: string[], timeoutMs = 240_000): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(edgeward, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** The installed path of a host path. */
const at = (path: string) => join(root, path);

/** Host paths in unit and config text, moved under the root (/opt/edgeward, /etc/edgeward, /var/lib, /var/log, /run/edgeward). */
function underRoot(text: string): string {
  return text.replace(/(^|[\s="'])(\/opt\/edgeward|\/etc\/edgeward|\/var\/lib\/edgeward|\/var\/log\/edgeward|\/run\/edgeward)/gm, (_match, lead: string, path: string) => `${lead}${root}${path}`);
}

interface UnitCommand {
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly type: string;
  readonly watchdogSec: string;
}

/** ExecStart= and Environment= of an installed unit, for an instance, with its paths under the root. */
function unitCommand(unit: string, instance = ''): UnitCommand {
  const text = readFileSync(at(`/etc/systemd/system/${unit}`), 'utf8').replaceAll('%i', instance);
  const values = (key: string) => [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]!.trim());
  const execStart = values('ExecStart');
  assert.equal(execStart.length, 1, `${unit} has one ExecStart=`);
  const env: Record<string, string> = {};
  for (const line of values('Environment')) {
    const eq = line.indexOf('=');
    env[line.slice(0, eq)] = underRoot(line.slice(eq + 1));
  }
  return { argv: underRoot(execStart[0]!).split(/\s+/), env, type: values('Type')[0] ?? 'simple', watchdogSec: values('WatchdogSec')[0] ?? '' };
}

interface Service {
  readonly name: string;
  readonly child: ChildProcess;
  readonly notify: NotifySocket;
  readonly output: () => string;
}

/** Starts a unit's command as the service user with its own notification socket and a 2 s watchdog. */
async function startService(name: string, command: UnitCommand): Promise<Service> {
  assert.equal(command.type, 'notify', `${name}: Type=notify`);
  assert.match(command.watchdogSec, /^\d+s$/, `${name}: WatchdogSec=`);
  const notifyDir = join(work, 'notify');
  mkdirSync(notifyDir, { recursive: true, mode: 0o755 });
  const notify = await openNotifySocket(notifyDir, `${name}.sock`);
  sockets.push(notify);
  const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: '/nonexistent', LANG: 'C.UTF-8', ...command.env, NOTIFY_SOCKET: notify.path, WATCHDOG_USEC: '2000000' };
  const child = spawn('setpriv', [...setprivAs(serviceUsers[name]!), '--', ...command.argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000)));
  const service = { name, child, notify, output: () => output };
  const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before READY=1:\n${output.slice(-4000)}`))));
  exited.catch(() => undefined);
  await Promise.race([notify.waitFor((message) => message.split('\n').includes('READY=1'), 120_000, `READY=1 from ${name}`), exited]);
  return service;
}

async function stopService(service: Service): Promise<void> {
  const exit = new Promise<number | string>((resolve) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) resolve(service.child.exitCode ?? service.child.signalCode!);
    else service.child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 30_000);
  const code = await exit;
  clearTimeout(timer);
  assert.equal(code, 0, `${service.name} exits 0 after SIGTERM:\n${service.output().slice(-3000)}`);
  assert.ok(service.notify.messages.some((message) => message.split('\n').includes('STOPPING=1')), `${service.name} sent STOPPING=1`);
  await service.notify.close();
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms${last ? `: ${last}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A file with its owner and mode (an operator's edited config, a key); by default the service user's. */
function writeOwned(path: string, text: string | Buffer, mode = 0o640, owner: [number, number] = [uid, gid]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  chownSync(path, owner[0], owner[1]);
}

function ownedDir(path: string, mode = 0o750, owner: [number, number] = [uid, gid]): void {
  mkdirSync(path, { recursive: true });
  chmodSync(path, mode);
  chownSync(path, owner[0], owner[1]);
}

/** The owner and mode docs/install.md and the tmpfiles.d file give each config: root, and the group that reads it. */
const configOwner = (path: string): [number, number] => [0, path.startsWith('/etc/edgeward/controller/') ? controllerGid : gid];

before(() => {
  chmodSync(work, 0o755);
  mkdirSync(root, { mode: 0o755 });
  // systemd-analyze verify --root needs the distribution's units (sysinit.target, ...) under the root.
  mkdirSync(join(root, 'usr', 'lib', 'systemd'), { recursive: true });
  cpSync('/lib/systemd/system', join(root, 'usr', 'lib', 'systemd', 'system'), { recursive: true, verbatimSymlinks: true });
  // Folders every host has, which the services' state and log folders go into.
  for (const dir of ['var/lib', 'var/log']) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
  baseline = listTree(root);
});

after(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const socket of sockets) await socket.close();
  rmSync(work, { recursive: true, force: true });
});

test('install lays out the release, the units, sysusers/tmpfiles and the example configs, and writes a manifest', () => {
  const result = runEdgeward(['install', '--root', root], 600_000);
  assert.equal(result.code, 0, result.stderr + result.stdout);
  assert.match(result.stdout, /installed edgeward v\d+\.\d+\.\d+ into .*\/opt\/edgeward: \d+ file\(s\) written/);
  assert.match(result.stdout, /--root: systemd-sysusers, systemd-tmpfiles and systemctl daemon-reload were not run/);
  assert.match(result.stdout, /pki init --dir/);
  for (const path of [
    `${prefix}/edgeward`,
    `${prefix}/lib/server/cli/main.js`,
    `${prefix}/lib/dashboard/.next/BUILD_ID`,
    `${prefix}/node_modules/next/package.json`,
    `${prefix}/node_modules/react/package.json`,
    ...units.map((unit) => `/etc/systemd/system/${unit}`),
    '/usr/lib/sysusers.d/edgeward.conf',
    '/usr/lib/tmpfiles.d/edgeward.conf',
    '/etc/edgeward/controller/ctrl1.yml',
    '/etc/edgeward/router/router1.yml',
    '/etc/edgeward/alerts.yml',
    '/etc/edgeward/dashboard.yml',
    '/etc/edgeward/prometheus/prometheus.yml',
    '/etc/edgeward/prometheus/rules/edgeward-rules.yml',
    '/etc/edgeward/alertmanager/alertmanager.yml',
    // Debian's Prometheus and Alertmanager bound to loopback.
    '/etc/systemd/system/prometheus.service.d/edgeward-loopback.conf',
    '/etc/systemd/system/prometheus-alertmanager.service.d/edgeward-loopback.conf',
    // None existed under this root, so Debian's services get ours.
    '/etc/prometheus/prometheus.yml',
    '/etc/prometheus/alertmanager.yml',
  ]) assert.ok(existsSync(at(path)), `${path} is installed`);
  assert.ok(!existsSync(at(`${prefix}/lib/server/cli/main.ts`)), 'no TypeScript sources');
  for (const absent of ['tsx', 'typescript', 'esbuild']) assert.ok(!existsSync(at(`${prefix}/node_modules/${absent}`)), `no ${absent} in the release`);
  assert.ok(!existsSync(at(`${prefix}/lib/dashboard/app`)), 'the page ships built, without its sources');
  assert.equal(statSync(at(`${prefix}/edgeward`)).mode & 0o777, 0o755);
  assert.equal(statSync(at('/etc/edgeward/controller')).mode & 0o777, 0o750);
  // The sysusers.d file makes a user for the controller and one for the routers; each unit runs as its own.
  const sysusers = readFileSync(at('/usr/lib/sysusers.d/edgeward.conf'), 'utf8');
  for (const user of ['edgeward', 'edgeward-controller', 'edgeward-router', 'edgeward-dashboard']) assert.match(sysusers, new RegExp(`^u\\s+${user}\\s`, 'm'));
  const unitUser = (unit: string) => /^User=(.*)$/m.exec(readFileSync(at(`/etc/systemd/system/${unit}`), 'utf8'))?.[1];
  assert.deepEqual(units.map(unitUser), ['edgeward-controller', 'edgeward-router', 'edgeward', 'edgeward-dashboard']);
  const manifest = JSON.parse(readFileSync(at(`${prefix}/MANIFEST.json`), 'utf8')) as { files: { path: string; kind: string; sha256?: string }[]; dirs: string[] };
  const listed = new Set(manifest.files.map((entry) => entry.path));
  for (const unit of units) assert.ok(listed.has(`/etc/systemd/system/${unit}`));
  assert.ok(manifest.files.filter((entry) => entry.kind === 'config').every((entry) => /^[0-9a-f]{64}$/.test(entry.sha256 ?? '')), 'every config is recorded with its hash');
  const installed = listTree(root).filter((path) => !path.endsWith('/') && !baseline.includes(path)).map((path) => `/${path}`);
  assert.deepEqual(installed.filter((path) => !listed.has(path)).sort(), [`${prefix}/MANIFEST.json`], 'the manifest lists every file laid out');
  assert.ok(manifest.dirs.includes('/etc/edgeward') && manifest.dirs.includes(prefix), 'the folders it created are recorded');
});

test('systemd-analyze verify passes every installed unit with no warning, and promtool accepts the installed rules', () => {
  const instances = ['edgeward-controller@ctrl1.service', 'edgeward-router@router1.service', 'edgeward-alerts.service', 'edgeward-dashboard.service'];
  const result = spawnSync('systemd-analyze', ['verify', `--root=${root}`, ...instances], { encoding: 'utf8', cwd: work });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(`${result.stdout}${result.stderr}`.trim(), '', 'no warning at all');
  const rules = spawnSync('promtool', ['check', 'rules', at('/etc/edgeward/prometheus/rules/edgeward-rules.yml')], { encoding: 'utf8' });
  assert.equal(rules.status, 0, rules.stdout + rules.stderr);
  const sysusers = spawnSync('systemd-sysusers', ['--dry-run', `--root=${root}`, at('/usr/lib/sysusers.d/edgeward.conf')], { encoding: 'utf8' });
  assert.equal(sysusers.status, 0, sysusers.stderr);
});

test('the installed drop-ins bind Debian\'s Prometheus and Alertmanager to loopback, with no cluster port', async (t) => {
  // Each drop-in's own ExecStart=, with what Debian's /etc/default file would put in $ARGS (a config and a data
  // folder), run in a network namespace of its own (so the fixed ports 9090 and 9093 are free), then `ss` lists what
  // it listens on.
  const services = [
    { dropIn: '/etc/systemd/system/prometheus.service.d/edgeward-loopback.conf', config: 'global: {scrape_interval: 15s}\n', args: (dir: string) => `--config.file=${dir}/config.yml --storage.tsdb.path=${dir}/data` },
    { dropIn: '/etc/systemd/system/prometheus-alertmanager.service.d/edgeward-loopback.conf', config: 'route: {receiver: none}\nreceivers: [{name: none}]\n', args: (dir: string) => `--config.file=${dir}/config.yml --storage.path=${dir}/data` },
  ];
  for (const service of services) {
    const execStart = [...readFileSync(at(service.dropIn), 'utf8').matchAll(/^ExecStart=(.*)$/gm)].map((match) => match[1]!);
    assert.equal(execStart[0], '', `${service.dropIn} clears Debian's ExecStart= first`);
    assert.equal(execStart.length, 2);
    const dir = mkdtempSync(join(work, 'monitoring-'));
    writeFileSync(join(dir, 'config.yml'), service.config);
    const command = execStart[1]!.replace('$ARGS', service.args(dir));
    const child = spawn('unshare', ['--net', '--', 'sh', '-c', `ip link set lo up && exec ${command}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const expected = service.dropIn.includes('alertmanager') ? ['127.0.0.1:9093'] : ['127.0.0.1:9090'];
      const listening = await until(`${command.split(' ')[0]} listening`, async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output.slice(-2000)}`);
        const ss = spawnSync('nsenter', [`--net=/proc/${child.pid}/ns/net`, '--', 'ss', '-lntuH'], { encoding: 'utf8' });
        const addresses = ss.stdout.trim().split('\n').filter(Boolean).map((line) => line.trim().split(/\s+/)[4]!).sort();
        return addresses.includes(expected[0]!) ? addresses : undefined;
      }, 60_000);
      t.diagnostic(`${command.split(' ')[0]} listens on ${listening.join(', ')}`);
      assert.deepEqual(listening, expected, 'loopback only; Alertmanager opens no cluster port (9094)');
    } finally {
      child.kill('SIGKILL');
    }
  }
});

test('a second install changes nothing, and an edited config is kept and reported', () => {
  const again = runEdgeward(['install', '--root', root]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, / 0 file\(s\) written, \d+ unchanged, 0 removed/);
  assert.match(again.stdout, /nothing changed: this release was already installed/);
  const edited = `${readFileSync(at('/etc/edgeward/alerts.yml'), 'utf8')}# edited by the operator\n`;
  writeFileSync(at('/etc/edgeward/alerts.yml'), edited);
  const third = runEdgeward(['install', '--root', root]);
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stdout, /kept \/etc\/edgeward\/alerts\.yml: edited by the operator/);
  assert.match(third.stdout, / 0 file\(s\) written/);
  assert.equal(readFileSync(at('/etc/edgeward/alerts.yml'), 'utf8'), edited);
});

test('the installed controller, router, alerts daemon and status page start from their units, report READY=1 and WATCHDOG=1, serve, and stop', async () => {
  const launcher = at(`${prefix}/edgeward`);
  const asRoot = (args: string[]) => execFileSync(launcher, args, { encoding: 'utf8', env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` } });
  // `sudo -u edgeward-controller ...`, `sudo -u edgeward-router ...` in docs/install.md.
  const asService = (service: string, args: string[]) => execFileSync('setpriv', [...setprivAs(serviceUsers[service]!), '--', launcher, ...args], { encoding: 'utf8', env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: '/nonexistent' } });

  // The PKI, as docs/install.md has the operator make it, with the installed release.
  const pki = join(work, 'pki');
  asRoot(['pki', 'init', '--dir', pki, '--trust-domain', 'install.test']);
  asRoot(['pki', 'controller', '--dir', pki, '--id', 'ctrl1', '--dns', 'localhost', '--ip', '127.0.0.1']);
  // The modes and owners of docs/install.md: the keys root:edgeward-controller 0640, the rest world-readable.
  const controllerKey: [number, number] = [0, controllerGid];
  writeOwned(at('/etc/edgeward/pki/ctrl1.chain.pem'), readFileSync(join(pki, 'controllers', 'ctrl1', 'chain.pem')), 0o644, [0, gid]);
  writeOwned(at('/etc/edgeward/pki/ctrl1.key.pem'), readFileSync(join(pki, 'controllers', 'ctrl1', 'key.pem')), 0o640, controllerKey);
  writeOwned(at('/etc/edgeward/pki/ca-bundle.pem'), readFileSync(join(pki, 'ca-bundle.pem')), 0o644, [0, gid]);
  writeOwned(at('/etc/edgeward/pki/signing.cert.pem'), readFileSync(join(pki, 'intermediate', 'ca.cert.pem')), 0o644, [0, gid]);
  writeOwned(at('/etc/edgeward/pki/signing.key.pem'), readFileSync(join(pki, 'intermediate', 'ca.key.pem')), 0o640, controllerKey);
  const caPem = readFileSync(at('/etc/edgeward/pki/ca-bundle.pem'), 'utf8');

  // What systemd-tmpfiles does with edgeward.tmpfiles.conf: the controllers' configs belong to group
  // edgeward-controller, the routers' to edgeward; root owns the parents of the state and log folders.
  chownSync(at('/etc/edgeward/controller'), 0, controllerGid);
  chownSync(at('/etc/edgeward/router'), 0, gid);
  for (const dir of ['/var/lib/edgeward', '/var/lib/edgeward/routers', '/var/log/edgeward', '/run/edgeward']) ownedDir(at(dir), 0o750, [0, gid]);
  // What systemd's StateDirectory=, LogsDirectory= and RuntimeDirectory= would create for each unit's user.
  ownedDir(at('/var/lib/edgeward/ctrl1'), 0o700, [controllerUid, gid]);
  ownedDir(at('/var/log/edgeward/ctrl1'), 0o750, [controllerUid, gid]);
  ownedDir(at('/run/edgeward/ctrl1'), 0o750, [controllerUid, gid]);
  ownedDir(at('/var/lib/edgeward/routers/router1'), 0o700, [routerUid, gid]);
  ownedDir(at('/var/lib/edgeward/alerts'), 0o700);
  ownedDir(at('/var/lib/edgeward/dashboard'), 0o700, [dashboardUid, gid]);

  const [web, ctrl, edge, link, health, alerts, page, closed] = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  ports = { web, health, alerts, page };
  // The operator's edits of the installed examples: loopback addresses, free ports, paths under the root.
  const edit = (path: string, replace: [string | RegExp, string][]) => {
    let text = underRoot(readFileSync(at(path), 'utf8'));
    for (const [from, to] of replace) text = text.replaceAll(from, to);
    writeOwned(at(path), text, 0o640, configOwner(path));
  };
  edit('/etc/edgeward/controller/ctrl1.yml', [
    ['tls:0.0.0.0:6262', `tls:127.0.0.1:${ctrl}`],
    ['interface: 0.0.0.0:1280', `interface: 127.0.0.1:${web}`],
    ['address: ctrl1.example.com:1280', `address: 127.0.0.1:${web}`],
  ]);
  edit('/etc/edgeward/router/router1.yml', [
    ['tls:ctrl1.example.com:6262', `tls:127.0.0.1:${ctrl}`],
    ['tls:0.0.0.0:3022', `tls:127.0.0.1:${edge}`],
    ['router1.example.com:3022', `127.0.0.1:${edge}`],
    ['tls:0.0.0.0:10080', `tls:127.0.0.1:${link}`],
    ['tls:router1.example.com:10080', `tls:127.0.0.1:${link}`],
    ['127.0.0.1:8081', `127.0.0.1:${health}`],
    [/interval: 30s\n(\s+)timeout: 15s\n(\s+)initialDelay: 15s/g, 'interval: 1s\n$1timeout: 5s\n$2initialDelay: 1s'],
  ]);
  edit('/etc/edgeward/alerts.yml', [
    ['https://ctrl1.example.com:1280', `https://127.0.0.1:${web}`],
    ['listen: 127.0.0.1:9105', `listen: 127.0.0.1:${alerts}`],
    // No Alertmanager here: a closed port.
    ['http://127.0.0.1:9093', `http://127.0.0.1:${closed}`],
  ]);
  edit('/etc/edgeward/dashboard.yml', [
    ['"127.0.0.1:9110"', `"127.0.0.1:${page}"`],
    ['https://ctrl1.example.com:1280', `https://127.0.0.1:${web}`],
    ['https://127.0.0.1:8081', `https://127.0.0.1:${health}`],
    ['http://127.0.0.1:9105', `http://127.0.0.1:${alerts}`],
  ]);

  const services: Service[] = [];
  try {
    // The controller: READY=1 once its APIs listen.
    const controller = await startService('controller', unitCommand('edgeward-controller@.service', 'ctrl1'));
    services.push(controller);
    const origin = `https://127.0.0.1:${web}`;
    const checks = await httpsJson(`${origin}/health-checks`, { ca: caPem });
    assert.equal(checks.status, 200, checks.text);

    // The cluster and its admin, through the agent socket the unit's RuntimeDirectory= holds.
    writeOwned(join(work, 'admin-password'), 'install-test-password-1\n', 0o600, [controllerUid, gid]);
    const socket = at('/run/edgeward/ctrl1/agent.sock');
    asService('controller', ['agent', 'controller', 'init', '--username', 'admin', '--password-file', join(work, 'admin-password'), '--socket', socket]);
    await until('the controller healthy', async () => ((await httpsJson(`${origin}/health-checks`, { ca: caPem })).json as { data?: { healthy?: boolean } })?.data?.healthy === true || undefined, 30_000);

    // A router: created on the management API, enrolled with its JWT as the service user.
    const management = `${origin}/edge/management/v1`;
    const token = await until('an admin session', async () => {
      const login = await httpsJson(`${management}/authenticate?method=password`, { ca: caPem, method: 'POST', body: { username: 'admin', password: 'install-test-password-1' } });
      return (login.json as { data?: { token?: string } })?.data?.token;
    }, 30_000);
    const created = await until('edge router router1', async () => {
      const response = await httpsJson(`${management}/edge-routers`, { ca: caPem, method: 'POST', headers: { 'zt-session': token }, body: { name: 'router1' } });
      if (response.status !== 201) throw new Error(`HTTP ${response.status} ${response.text}`);
      return (response.json as { data: { id: string } }).data.id;
    }, 30_000);
    const jwt = await until('the enrollment JWT', async () => ((await httpsJson(`${management}/edge-routers/${created}`, { ca: caPem, headers: { 'zt-session': token } })).json as { data?: { enrollmentJwt?: string } })?.data?.enrollmentJwt || undefined, 30_000);
    writeOwned(join(work, 'router1.jwt'), `${jwt}\n`, 0o600, [routerUid, gid]);
    asService('router', ['router', 'enroll', at('/etc/edgeward/router/router1.yml'), '--jwt', join(work, 'router1.jwt')]);
    const router = await startService('router', unitCommand('edgeward-router@.service', 'router1'));
    services.push(router);
    await until('router1 reaching its controller (controllerPing)', async () => {
      const response = await httpsJson(`https://127.0.0.1:${health}/health-checks`, { ca: caPem, timeoutMs: 3000 });
      const ping = (response.json as { data?: { checks?: { id: string; healthy: boolean }[] } })?.data?.checks?.find((check) => check.id === 'controllerPing');
      return ping?.healthy === true || undefined;
    }, 60_000);

    const daemon = await startService('alerts', unitCommand('edgeward-alerts.service'));
    services.push(daemon);
    const daemonHealth = await fetch(`http://127.0.0.1:${alerts}/health`);
    assert.equal(daemonHealth.status, 200);

    const statusPage = await startService('dashboard', unitCommand('edgeward-dashboard.service'));
    services.push(statusPage);
    assert.equal((await fetch(`http://127.0.0.1:${page}/api/health`)).status, 200);
    const html = await fetch(`http://127.0.0.1:${page}/`);
    assert.equal(html.status, 200, 'the shipped build of the page serves');
    assert.match(await html.text(), /<html/i);

    // WATCHDOG=1 keeps coming from each event loop (every 1 s with the 2 s watchdog given here).
    for (const service of services) {
      await service.notify.waitFor(() => service.notify.messages.filter((message) => message.split('\n').includes('WATCHDOG=1')).length >= 2, 10_000, `two WATCHDOG=1 from ${service.name}`);
    }
  } finally {
    for (const service of services.reverse()) await stopService(service);
  }
});

test('real systemd boots the installed units in a PID namespace: all four become active (READY=1), serve, and stop cleanly', async (t) => {
  assert.ok(ports, 'the services were configured by the test before');
  const { web, health, alerts, page } = ports;
  // The services' configs, with the host paths systemd's sandbox expects (the root is bind-mounted there below).
  for (const path of ['/etc/edgeward/controller/ctrl1.yml', '/etc/edgeward/router/router1.yml', '/etc/edgeward/alerts.yml', '/etc/edgeward/dashboard.yml']) {
    writeOwned(at(path), readFileSync(at(path), 'utf8').replaceAll(root, ''), 0o640, configOwner(path));
  }
  // /etc for the namespace: the host's, with the users and groups of edgeward.sysusers.conf.
  const etc = join(work, 'etc');
  cpSync('/etc', etc, { recursive: true, verbatimSymlinks: true, filter: (source) => !source.startsWith('/etc/ssl/private') });
  writeFileSync(join(etc, 'passwd'), [
    readFileSync('/etc/passwd', 'utf8').trimEnd(),
    `edgeward:x:${uid}:${gid}:edgeward services:/var/lib/edgeward:/usr/sbin/nologin`,
    `edgeward-controller:x:${controllerUid}:${controllerGid}:edgeward controller:/var/lib/edgeward:/usr/sbin/nologin`,
    `edgeward-router:x:${routerUid}:${routerUid}:edgeward router:/var/lib/edgeward:/usr/sbin/nologin`,
    `edgeward-dashboard:x:${dashboardUid}:${dashboardUid}:edgeward status page:/var/lib/edgeward:/usr/sbin/nologin`,
    '',
  ].join('\n'));
  writeFileSync(join(etc, 'group'), [
    readFileSync('/etc/group', 'utf8').trimEnd(),
    `edgeward:x:${gid}:edgeward-controller,edgeward-router,edgeward-dashboard`,
    `edgeward-controller:x:${controllerGid}:`,
    `edgeward-router:x:${routerUid}:`,
    `edgeward-dashboard:x:${dashboardUid}:`,
    '',
  ].join('\n'));
  // systemd loads units from this folder only (SYSTEMD_UNIT_PATH without a trailing ':'): the installed units, a target
  // that wants them, and a drop-in per unit that sends its output to a file. Never the distribution's units: booting
  // sysinit.target would run systemd-tmpfiles-setup (which empties /tmp), sysctl and the rest against this machine.
  const unitDir = join(work, 'units');
  mkdirSync(unitDir);
  const wanted = ['edgeward-controller@ctrl1.service', 'edgeward-router@router1.service', 'edgeward-alerts.service', 'edgeward-dashboard.service'];
  for (const unit of units) {
    cpSync(at(`/etc/systemd/system/${unit}`), join(unitDir, unit));
    mkdirSync(join(unitDir, `${unit}.d`));
    writeFileSync(join(unitDir, `${unit}.d`, 'output.conf'), `[Service]\nStandardOutput=append:/var/log/edgeward/${unit.replace('@.service', '').replace('.service', '')}.out\nStandardError=inherit\n`);
  }
  writeFileSync(join(unitDir, 'edgeward-test.target'), `[Unit]\nDescription=edgeward install test\nWants=${wanted.join(' ')}\n`);
  const outputOf = (unit: string) => {
    try {
      return readFileSync(at(`/var/log/edgeward/${unit.replace(/@.*$/, '').replace('.service', '')}.out`), 'utf8').slice(-4000);
    } catch {
      return '(no output)';
    }
  };
  mkdirSync(join(etc, 'edgeward'), { recursive: true });
  const script = [
    'set -e',
    'mount --make-rprivate /',
    'mount -t tmpfs -o mode=0755 tmpfs /run',
    `mount --bind ${etc} /etc`,
    `mount --bind ${at('/etc/edgeward')} /etc/edgeward`,
    'mount -t tmpfs -o mode=0755 tmpfs /opt && mkdir /opt/edgeward',
    `mount --bind ${at(prefix)} /opt/edgeward`,
    'mount -t tmpfs -o mode=0755 tmpfs /var/lib && mkdir /var/lib/edgeward',
    `mount --bind ${at('/var/lib/edgeward')} /var/lib/edgeward`,
    'mount -t tmpfs -o mode=0755 tmpfs /var/log && mkdir /var/log/edgeward',
    `mount --bind ${at('/var/log/edgeward')} /var/log/edgeward`,
    'exec /lib/systemd/systemd --system --unit=edgeward-test.target --show-status=false',
  ].join('\n');
  const boot = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--uts', '--ipc', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', SYSTEMD_UNIT_PATH: unitDir } });
  let bootOutput = '';
  boot.stdout!.on('data', (chunk: Buffer) => (bootOutput += chunk.toString()));
  boot.stderr!.on('data', (chunk: Buffer) => (bootOutput += chunk.toString()));
  const exited = new Promise<void>((resolve) => boot.once('exit', () => resolve()));
  let systemdPid: number | undefined;
  const inside = (args: string[], pid = systemdPid) => spawnSync('nsenter', ['--target', String(pid), '--mount', '--pid', '--', ...args], { encoding: 'utf8', timeout: 30_000 });
  const show = (unit: string): Record<string, string> => Object.fromEntries(inside(['systemctl', 'show', unit, '-p', 'ActiveState,SubState,Result,ExecMainStatus,NRestarts,WatchdogTimestampMonotonic,StatusText']).stdout.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  try {
    systemdPid = await until('systemd to start in its PID namespace', async () => {
      if (boot.exitCode !== null) throw new Error(`unshare exited ${boot.exitCode}: ${bootOutput}`);
      const children = readFileSync(`/proc/${boot.pid}/task/${boot.pid}/children`, 'utf8').trim();
      const pid = Number(children.split(' ')[0]);
      if (!pid || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('systemd')) return undefined;
      const running = inside(['systemctl', 'is-system-running'], pid).stdout.trim();
      return running !== '' && running !== 'offline' ? pid : undefined;
    }, 30_000).catch((error: Error) => {
      // Where systemd cannot run (no CAP_SYS_ADMIN, no cgroups), say why: the units were verified and run above.
      t.diagnostic(`real systemd could not be booted here: ${error.message}`);
      return undefined;
    });
    if (systemdPid === undefined) return;
    const states = await until('every unit active (Type=notify: READY=1 received)', async () => {
      const all = wanted.map((unit): Record<string, string> => ({ ...show(unit), unit }));
      const failed = all.find((state) => state.ActiveState === 'failed');
      if (failed) throw new Error(`${failed.unit} failed (${failed.Result}, exit ${failed.ExecMainStatus}):\n${outputOf(failed.unit!)}`);
      return all.every((state) => state.ActiveState === 'active' && state.SubState === 'running') ? all : undefined;
    }, 90_000);
    for (const state of states) t.diagnostic(`${state.unit}: ${state.ActiveState}/${state.SubState}, status "${state.StatusText}"`);
    const caPem = readFileSync(at('/etc/edgeward/pki/ca-bundle.pem'), 'utf8');
    assert.equal((await httpsJson(`https://127.0.0.1:${web}/health-checks`, { ca: caPem })).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${alerts}/health`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${page}/api/health`)).status, 200);
    await until('router1 reaching its controller under systemd', async () => {
      const response = await httpsJson(`https://127.0.0.1:${health}/health-checks`, { ca: caPem, timeoutMs: 3000 });
      return (response.json as { data?: { checks?: { id: string; healthy: boolean }[] } })?.data?.checks?.find((check) => check.id === 'controllerPing')?.healthy === true || undefined;
    }, 60_000);
    // systemd recorded the watchdog pings (WatchdogSec=30s: the first comes with READY=1).
    for (const unit of wanted) assert.notEqual(show(unit).WatchdogTimestampMonotonic ?? '0', '0', `${unit}: WATCHDOG=1 received`);

    // Least privilege: from inside each running unit's mount namespace, with the user and groups its main process has,
    // try to read the controller's key, the enrollment signing key, its config, its state and its agent socket's
    // folder. The controller reads each (the files are there: the check can tell); no other unit reads any.
    const secrets: [string, string][] = [
      ['the controller key', 'cat -- /etc/edgeward/pki/ctrl1.key.pem'],
      ['the enrollment signing key', 'cat -- /etc/edgeward/pki/signing.key.pem'],
      ['the controller config', 'cat -- /etc/edgeward/controller/ctrl1.yml'],
      ['the controller state folder', 'ls -- /var/lib/edgeward/ctrl1'],
      ['the controller model (LevelDB)', 'cat -- /var/lib/edgeward/ctrl1/ctrl.db/CURRENT'],
      ['the agent socket folder', 'ls -- /run/edgeward/ctrl1'],
    ];
    const readAsUnit = (unit: string, command: string) => {
      const main = inside(['systemctl', 'show', unit, '-p', 'MainPID', '--value']).stdout.trim();
      const status = inside(['cat', `/proc/${main}/status`]).stdout;
      const id = (field: string) => new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1];
      const groups = (/^Groups:[ \t]*(.*)$/m.exec(status)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
      assert.ok(main !== '0' && id('Uid') && id('Gid'), `${unit}: its main process ${main}`);
      const as = ['--reuid', id('Uid')!, '--regid', id('Gid')!, ...(groups.length > 0 ? ['--groups', groups.join(',')] : ['--clear-groups'])];
      const result = inside(['nsenter', `--target=${main}`, '--mount', '--', 'setpriv', ...as, '--', 'sh', '-c', `${command} > /dev/null`]);
      return { read: result.status === 0, why: result.stderr.trim(), user: `uid ${id('Uid')} gid ${id('Gid')} groups ${groups.join(',') || '-'}` };
    };
    for (const [what, command] of secrets) {
      const own = readAsUnit('edgeward-controller@ctrl1.service', command);
      assert.ok(own.read, `the controller reads ${what} (${own.user}): ${own.why}`);
    }
    for (const unit of ['edgeward-router@router1.service', 'edgeward-alerts.service', 'edgeward-dashboard.service']) {
      for (const [what, command] of secrets) {
        const attempt = readAsUnit(unit, command);
        assert.ok(!attempt.read, `${unit} (${attempt.user}) must not read ${what}`);
        t.diagnostic(`${unit} (${attempt.user}) cannot read ${what}: ${attempt.why}`);
      }
    }
    const stop = inside(['systemctl', 'stop', ...wanted]);
    assert.equal(stop.status, 0, stop.stderr);
    for (const unit of wanted) {
      const state = show(unit);
      assert.equal(state.ActiveState, 'inactive', `${unit} stopped`);
      assert.equal(state.Result, 'success', `${unit} stopped cleanly: ${outputOf(unit)}`);
      assert.equal(state.NRestarts, '0', `${unit} was never restarted`);
    }
  } finally {
    // Killing the namespace's PID 1 ends every process in it; unshare's child is that PID 1 even when the wait above failed.
    let init = systemdPid;
    try {
      init ??= Number(readFileSync(`/proc/${boot.pid}/task/${boot.pid}/children`, 'utf8').trim().split(' ')[0]) || undefined;
    } catch {
      // unshare is gone, and its namespace with it.
    }
    if (init !== undefined) process.kill(init, 'SIGKILL');
    boot.kill('SIGKILL');
    await exited;
    rmSync(etc, { recursive: true, force: true });
    // PrivateTmp= folders of the killed manager, in this machine's /tmp.
    for (const name of readdirSync('/tmp')) if (/^systemd-private-.*-edgeward-/.test(name)) rmSync(join('/tmp', name), { recursive: true, force: true });
  }
});

test('uninstall --purge removes exactly what was installed: the root is as it was before', () => {
  // The operator's own files outside the manifest: the PKI they put in /etc/edgeward/pki and /run.
  rmSync(at('/etc/edgeward/pki'), { recursive: true, force: true });
  rmSync(at('/run'), { recursive: true, force: true });
  const result = runEdgeward(['uninstall', '--root', root, '--purge']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /removed \d+ file\(s\) of edgeward/);
  assert.match(result.stdout, /purged \/var\/lib\/edgeward/);
  const now = listTree(root);
  assert.deepEqual({ left: now.filter((path) => !baseline.includes(path)), removed: baseline.filter((path) => !now.includes(path)) }, { left: [], removed: [] });
});

test('the pack tarball installs with only Node.js: no TypeScript toolchain inside, the same layout', () => {
  const tarball = join(work, 'edgeward.tar.gz');
  const packed = runEdgeward(['pack', '--out', tarball], 600_000);
  assert.equal(packed.code, 0, packed.stderr);
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  const [top] = readdirSync(unpacked);
  assert.match(top!, /^edgeward-v\d+\.\d+\.\d+$/);
  const release = join(unpacked, top!);
  for (const absent of ['tsx', 'typescript', 'esbuild']) assert.ok(!existsSync(join(release, 'node_modules', absent)), `no ${absent}`);
  assert.equal(execFileSync('find', [release, '-name', '*.ts', '-not', '-name', '*.d.ts', '-not', '-path', '*/node_modules/*'], { encoding: 'utf8' }), '', 'no TypeScript sources');
  const target = join(work, 'root2');
  mkdirSync(target);
  // Only node on PATH: no tsx, no checkout.
  const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: work };
  const install = spawnSync(join(release, 'install.sh'), ['--root', target], { encoding: 'utf8', env, cwd: work });
  assert.equal(install.status, 0, install.stderr + install.stdout);
  assert.match(install.stdout, /installed edgeward v/);
  assert.equal(execFileSync(join(target, 'opt', 'edgeward', 'edgeward'), ['version'], { encoding: 'utf8', env }).trim(), top!.slice('edgeward-'.length));
  for (const unit of units) assert.ok(existsSync(join(target, 'etc', 'systemd', 'system', unit)));
  const again = spawnSync(join(release, 'install.sh'), ['--root', target], { encoding: 'utf8', env, cwd: work });
  assert.match(again.stdout, /nothing changed/);
});
