import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { runPagerCommand } from './pager-command.ts';

const cliEntry = fileURLToPath(new URL('../../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'edgeward-pager-command-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text) } };
}

test('./edgeward alerts pager listens on a free port, logs what Alertmanager posts and stops cleanly on SIGTERM', async () => {
  const logFile = join(dir, 'pager.jsonl');
  const child = spawn(process.execPath, ['--import', tsxLoader, cliEntry, 'alerts', 'pager', '--listen', '127.0.0.1:0', '--log', logFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 30_000;
    let match: RegExpMatchArray | null = null;
    while (!(match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout))) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `the pager did not start:\n${stdout}${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const base = match[1]!;
    assert.notEqual(match[2], '0');
    assert.equal((await fetch(`${base}/health`)).status, 200);
    const body = {
      version: '4',
      status: 'firing',
      receiver: 'edgeward-warnings',
      groupLabels: { alertname: 'EdgewardPeerFlapping', cluster: 'demo' },
      commonLabels: { alertname: 'EdgewardPeerFlapping', cluster: 'demo', severity: 'warning' },
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'EdgewardPeerFlapping', cluster: 'demo', controller: 'ctrl1', peer_id: 'ctrl2', severity: 'warning' },
          annotations: { summary: 'A peer channel between two controllers keeps disconnecting and reconnecting.' },
          startsAt: '2026-11-26T10:00:00Z',
          endsAt: '0001-01-01T00:00:00Z',
          fingerprint: '0123456789abcdef',
        },
      ],
    };
    assert.equal((await fetch(`${base}/warnings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status, 200);
    assert.equal((await fetch(`${base}/warnings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' })).status, 400);
    const line = JSON.parse(readFileSync(logFile, 'utf8').trim()) as Record<string, unknown>;
    assert.equal(line['alertname'], 'EdgewardPeerFlapping');
    assert.equal(line['receiver'], 'edgeward-warnings');
    assert.equal(line['controller'], 'ctrl1');
    assert.deepEqual(line['labels'], body.alerts[0]!.labels);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    assert.match(stdout, /stopped \(SIGTERM\)/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('missing or bad arguments are a usage error with exit code 2', async () => {
  for (const [args, message] of [
    [['--log', '/tmp/x'], /--listen is required/],
    [['--listen', '127.0.0.1:0'], /--log is required/],
    [['--listen', 'localhost', '--log', '/tmp/x'], /is not <host>:<port>/],
    [['--listen', '127.0.0.1:70000', '--log', '/tmp/x'], /outside 0-65535/],
    [['--listen', '127.0.0.1:0', '--log', '/tmp/x', '--verbose'], /unknown flag --verbose/],
    [['--listen', '127.0.0.1:0', '--log', '/tmp/x', 'extra'], /takes no arguments, not 'extra'/],
  ] as const) {
    const { out, io } = capture();
    assert.equal(await runPagerCommand([...args], io), 2, args.join(' '));
    assert.match(out.stderr, message);
    assert.match(out.stderr, /^edgeward alerts pager: .*\nRun '\.\/edgeward alerts pager --help' for usage\.\n$/);
  }
});

test('a port that is taken is reported with exit code 1', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const { out, io } = capture();
    assert.equal(await runPagerCommand(['--listen', `127.0.0.1:${port}`, '--log', join(dir, 'x.jsonl')], io), 1);
    assert.match(out.stderr, /cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
  } finally {
    blocker.close();
  }
});
