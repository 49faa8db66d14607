// The alerts daemon as an operator runs it: `./edgeward alerts run alerts.yml` in its own process, following log
// and event files this test appends to the way a controller does, and delivering to an Alertmanager (a fake that
// records every POST). It pages and warns with the catalogue's labels and annotations, follows a rotated log, and
// after SIGTERM and a restart neither sends again what it already handled nor misses a line written while it was
// down.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { FakeAlertmanager } from './support/fake-alertmanager.ts';
import type { ReceivedAlert } from './support/fake-alertmanager.ts';

const cliEntry = fileURLToPath(new URL('../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

const root = mkdtempSync(join(tmpdir(), 'edgeward-alerts-daemon-'));
const am = new FakeAlertmanager();
const running = new Set<ChildProcess>();
after(async () => {
  for (const child of running) child.kill('SIGKILL');
  await am.stop();
  rmSync(root, { recursive: true, force: true });
});

const ctrl1Log = join(root, 'logs', 'ctrl1.log');
const ctrl1Events = join(root, 'events', 'ctrl1-events.jsonl');
const ctrl2Log = join(root, 'logs', 'ctrl2.log');
const configFile = join(root, 'alerts.yml');

/** A line as the controller writes it: `component` is that of the msg's emitter (docs/operator-guide.md, Logs). */
function logLine(controller: string, component: string, msg: string, fields: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg, component, controllerId: controller, ...fields })}\n`;
}

function clusterEvent(controller: string, eventType: string, fields: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ namespace: 'cluster', event_src_id: controller, timestamp: new Date().toISOString(), eventType, ...fields })}\n`;
}

interface Daemon {
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then the exit code (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

async function startDaemon(): Promise<Daemon> {
  const child = spawn(process.execPath, ['--import', tsxLoader, cliEntry, 'alerts', 'run', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  // Started once it prints where it listens (after reading the state and positioning every file).
  while (!output.includes('alerts daemon started')) {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the daemon did not start within 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      running.delete(child);
      return code;
    },
  };
}

const named = (name: string, controller: string) => (alert: ReceivedAlert) => alert.labels.alertname === name && alert.labels.controller === controller;
const sent = (name: string, controller: string) => am.accepted.filter(named(name, controller));

test('the alerts daemon pages and warns from log and event lines, follows rotation, and resumes after a restart without repeats', { timeout: 120_000 }, async () => {
  await am.start();
  for (const dir of ['logs', 'events']) mkdirSync(join(root, dir), { recursive: true });
  // Written before the daemon first starts: history, not news.
  writeFileSync(ctrl1Log, logLine('ctrl1', 'cluster', 'cluster running without leader for longer than configured threshold'));
  writeFileSync(ctrl1Events, '');
  writeFileSync(
    configFile,
    [
      'cluster: xproc',
      'controllers:',
      `  - id: ctrl1`,
      `    logFile: ${ctrl1Log}`,
      `    eventsFile: ${ctrl1Events}`,
      `  - id: ctrl2`,
      `    logFile: ${ctrl2Log}`,
      'alertmanager:',
      `  urls: [${am.url}]`,
      '  resendInterval: 1h',
      '  retryInitialBackoff: 100ms',
      `stateDir: ${join(root, 'state')}`,
      'listen: 127.0.0.1:0',
      'runbookBaseUrl: https://runbooks.example.test/edgeward.md',
      'rules:',
      '  oneShotHold: 1h',
      '',
    ].join('\n'),
  );

  let daemon = await startDaemon();
  try {
    // A page: the leaderless log line.
    appendFileSync(ctrl1Log, logLine('ctrl1', 'cluster', 'cluster running without leader for longer than configured threshold', { leaderlessForMs: 61_000 }));
    await am.waitFor(() => sent('EdgewardClusterLeaderless', 'ctrl1').length === 1, 10_000, 'the leaderless page');
    const page = sent('EdgewardClusterLeaderless', 'ctrl1')[0]!;
    assert.deepEqual(page.labels, { alertname: 'EdgewardClusterLeaderless', severity: 'critical', cluster: 'xproc', controller: 'ctrl1' });
    assert.equal(page.annotations.summary, 'A controller has had no raft leader for longer than the leaderless threshold.');
    assert.equal(page.annotations.runbook_url, 'https://runbooks.example.test/edgeward.md#edgewardclusterleaderless');
    assert.match(page.annotations.description!, /^Cluster xproc: ctrl1: log line "cluster running without leader/);
    assert.ok(Date.parse(page.endsAt!) > Date.now(), 'a firing alert ends in the future');

    // A warning from a log file that did not exist when the daemon started.
    appendFileSync(ctrl2Log, logLine('ctrl2', 'peers', 'peer TLS handshake failed: x509: certificate signed by unknown authority', { remote: '10.0.0.9:5555' }));
    await am.waitFor(() => sent('EdgewardPeerTlsFailure', 'ctrl2').length === 1, 10_000, 'the TLS warning');
    assert.deepEqual(sent('EdgewardPeerTlsFailure', 'ctrl2')[0]!.labels, { alertname: 'EdgewardPeerTlsFailure', severity: 'warning', cluster: 'xproc', controller: 'ctrl2' });

    // The leader is back: the page resolves, with endsAt in the past.
    appendFileSync(ctrl1Events, clusterEvent('ctrl1', 'state.has_leader', { leaderId: 'ctrl2' }));
    await am.waitFor(() => sent('EdgewardClusterLeaderless', 'ctrl1').length === 2, 10_000, 'the resolved page');
    assert.ok(Date.parse(sent('EdgewardClusterLeaderless', 'ctrl1')[1]!.endsAt!) <= Date.now());

    // Rotation: a line written just before the rename, then lines in the new file.
    appendFileSync(ctrl1Log, logLine('ctrl1', 'controller', 'restored snapshot to initialized system, restart required', { index: 42 }));
    renameSync(ctrl1Log, join(root, 'logs', 'ctrl1-2026-11-24T04-05-06.789.log'));
    writeFileSync(ctrl1Log, logLine('ctrl1', 'raft', 'raft node stopped after a failure', { error: 'disk full' }));
    await am.waitFor(
      () => sent('EdgewardSnapshotRestartRequired', 'ctrl1').length === 1 && sent('EdgewardRaftNodeFailed', 'ctrl1').length === 1,
      10_000,
      'both warnings around the rotation',
    );

    assert.equal(await daemon.stop(), 0, daemon.output());
    assert.ok(existsSync(join(root, 'state', 'alerts-state.json')));
    const postsBeforeRestart = am.posts.length;

    // Written while the daemon is down.
    appendFileSync(ctrl2Log, logLine('ctrl2', 'cluster', 'leadership transfer to preferred leader failed, will try next', { to: 'ctrl3' }));
    daemon = await startDaemon();
    await am.waitFor(() => sent('EdgewardPreferredLeaderTransferFailed', 'ctrl2').length === 1, 10_000, 'the warning for the line written while down');
    // Give it time to (wrongly) send anything again.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const afterRestart = am.posts.slice(postsBeforeRestart).flatMap((post) => post.alerts);
    assert.deepEqual(
      afterRestart.map((alert) => `${alert.labels.alertname} ${alert.labels.controller}`),
      ['EdgewardPreferredLeaderTransferFailed ctrl2'],
      'only the new line is sent after the restart',
    );
    // The page from the line before the first start never fired; the restart repeated nothing.
    assert.equal(sent('EdgewardClusterLeaderless', 'ctrl1').length, 2);
    assert.equal(sent('EdgewardPeerTlsFailure', 'ctrl2').length, 1);
  } finally {
    if (daemon.child.exitCode === null) assert.equal(await daemon.stop(), 0, daemon.output());
  }
});
