import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startPagerServer, type PagerServer } from './pager-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-pager-'));
const logFile = join(dir, 'pager.jsonl');
let pager: PagerServer;
let base: string;

before(async () => {
  pager = await startPagerServer({ host: '127.0.0.1', port: 0, logFile, maxBodyBytes: 64 * 1024, now: () => new Date('2026-11-26T10:00:00.000Z') });
  base = `http://127.0.0.1:${pager.port}`;
});

after(async () => {
  await pager.close();
  rmSync(dir, { recursive: true, force: true });
});

function notification(overrides: Record<string, unknown> = {}) {
  return {
    version: '4',
    groupKey: '{}/{severity="critical"}:{alertname="EdgewardQuorumLost", cluster="demo"}',
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'edgeward-pager',
    groupLabels: { alertname: 'EdgewardQuorumLost', cluster: 'demo' },
    commonLabels: { alertname: 'EdgewardQuorumLost', cluster: 'demo', controller: 'all', severity: 'critical' },
    commonAnnotations: {},
    externalURL: 'http://127.0.0.1:9093',
    alerts: [
      {
        status: 'firing',
        labels: { alertname: 'EdgewardQuorumLost', cluster: 'demo', controller: 'all', severity: 'critical' },
        annotations: { summary: 'Fewer than a majority of voters are connected: the cluster has lost quorum.', runbook_url: 'docs/runbooks.md#edgewardquorumlost' },
        startsAt: '2026-11-26T09:58:00.000Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://127.0.0.1:9090/graph',
        fingerprint: 'a1b2c3d4e5f60718',
      },
    ],
    ...overrides,
  };
}

const post = (body: unknown, path = '/pager') => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

function logLines(): Record<string, unknown>[] {
  try {
    return readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
}

test('a notification is answered 200 and each of its alerts becomes one JSON line in the log', async () => {
  const before = logLines().length;
  const second = { ...notification().alerts[0]!, labels: { alertname: 'EdgewardQuorumLost', cluster: 'demo', controller: 'all', severity: 'critical', extra: 'x' }, fingerprint: 'ffff' };
  const response = await post(notification({ alerts: [notification().alerts[0], second] }));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: 'ok', alerts: 2 });
  const lines = logLines().slice(before);
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[0], {
    receivedAt: '2026-11-26T10:00:00.000Z',
    receiver: 'edgeward-pager',
    status: 'firing',
    alertname: 'EdgewardQuorumLost',
    severity: 'critical',
    cluster: 'demo',
    controller: 'all',
    labels: { alertname: 'EdgewardQuorumLost', cluster: 'demo', controller: 'all', severity: 'critical' },
    annotations: { summary: 'Fewer than a majority of voters are connected: the cluster has lost quorum.', runbook_url: 'docs/runbooks.md#edgewardquorumlost' },
    startsAt: '2026-11-26T09:58:00.000Z',
    endsAt: '0001-01-01T00:00:00Z',
    fingerprint: 'a1b2c3d4e5f60718',
  });
  assert.equal(lines[1]!['fingerprint'], 'ffff');
});

test('a resolved alert is logged with its status and end', async () => {
  const before = logLines().length;
  const resolved = { ...notification().alerts[0]!, status: 'resolved', endsAt: '2026-11-26T10:05:00.000Z' };
  assert.equal((await post(notification({ status: 'resolved', alerts: [resolved] }), '/warnings')).status, 200);
  const [line] = logLines().slice(before);
  assert.equal(line!['status'], 'resolved');
  assert.equal(line!['endsAt'], '2026-11-26T10:05:00.000Z');
});

test('GET /health answers 200; other methods are refused with 405 and the allowed ones', async () => {
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  const get = await fetch(`${base}/pager`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  const put = await fetch(`${base}/health`, { method: 'PUT', body: '{}' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, HEAD');
});

test('bodies that are not JSON or not a version 4 notification are refused with 400 and the reason', async () => {
  const before = logLines().length;
  const cases: [unknown, RegExp][] = [
    ['{"version": "4",', /not JSON/],
    ['[]', /must be a JSON object/],
    [notification({ version: '3' }), /version must be "4"/],
    [notification({ status: 'broken' }), /status must be "firing" or "resolved"/],
    [notification({ receiver: '' }), /receiver must be a non-empty string/],
    [notification({ commonLabels: { cluster: 3 } }), /commonLabels\.cluster must be a string/],
    [notification({ alerts: {} }), /alerts must be an array/],
    [notification({ alerts: [{ ...notification().alerts[0], fingerprint: 7 }] }), /alerts\[0\]\.fingerprint must be a string/],
    [notification({ alerts: [{ ...notification().alerts[0], labels: null }] }), /alerts\[0\]\.labels must be an object of strings/],
    ['['.repeat(100) + ']'.repeat(100), /not a notification/],
  ];
  for (const [body, reason] of cases) {
    const response = await post(body);
    assert.equal(response.status, 400, String(body).slice(0, 60));
    assert.match(((await response.json()) as { error: string }).error, reason);
  }
  assert.equal(logLines().length, before, 'nothing refused was logged');
});

test('a body over the limit is refused with 413, declared or streamed, and the server goes on', async () => {
  const large = JSON.stringify(notification({ padding: 'x'.repeat(100 * 1024) }));
  assert.equal((await post(large)).status, 413);
  // Streamed in chunks, without a length: refused as soon as it passes the limit.
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${base}/pager`, { method: 'POST', headers: { 'transfer-encoding': 'chunked', 'content-type': 'application/json' } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    req.on('error', reject);
    for (let i = 0; i < 10; i++) req.write('x'.repeat(8 * 1024));
    req.end();
  });
  assert.equal(status, 413);
  assert.equal((await post(notification())).status, 200);
});

test('notifications that arrive together are all logged, each line whole', async () => {
  const before = logLines().length;
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, index) => post(notification({ alerts: [{ ...notification().alerts[0], fingerprint: `f${index}` }] }))),
  );
  assert.ok(responses.every((response) => response.status === 200));
  const fingerprints = logLines().slice(before).map((line) => line['fingerprint']).sort();
  assert.deepEqual(fingerprints, Array.from({ length: 20 }, (_, index) => `f${index}`).sort());
});

test('a log that cannot be written is answered 500, so Alertmanager sends the notification again', async () => {
  const errors: string[] = [];
  const broken = await startPagerServer({ host: '127.0.0.1', port: 0, logFile: join(dir, 'missing-folder', 'pager.jsonl'), onWriteError: (error) => errors.push(error.message) });
  try {
    const response = await fetch(`http://127.0.0.1:${broken.port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(notification()) });
    assert.equal(response.status, 500);
    assert.match(errors[0] ?? '', /ENOENT/);
  } finally {
    await broken.close();
  }
});

/** A raw request with the Host header the test chooses (fetch always sends the URL's own). */
function rawPost(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: pager.port, path, method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a Host that is not the pager\'s own (DNS rebinding) is answered 421 and nothing is logged', async () => {
  const before = logLines().length;
  const body = JSON.stringify(notification());
  for (const host of ['attacker.example', `attacker.example:${pager.port}`, '127.0.0.1', `127.0.0.1:${pager.port + 1}`]) {
    const response = await rawPost('/pager', { host, 'content-type': 'application/json' }, body);
    assert.equal(response.status, 421, host);
  }
  assert.equal(logLines().length, before, 'nothing refused was logged');
  for (const host of [`127.0.0.1:${pager.port}`, `localhost:${pager.port}`, `[::1]:${pager.port}`]) {
    assert.equal((await rawPost('/pager', { host, 'content-type': 'application/json' }, body)).status, 200, host);
  }
});

test('a body that is not application/json is refused with 415, even when it is a notification', async () => {
  const before = logLines().length;
  const body = JSON.stringify(notification());
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
    const response = await rawPost('/pager', { host: `127.0.0.1:${pager.port}`, 'content-type': type }, body);
    assert.equal(response.status, 415, type);
  }
  assert.equal((await rawPost('/pager', { host: `127.0.0.1:${pager.port}` }, body)).status, 415, 'no content type');
  assert.equal(logLines().length, before);
  assert.equal((await rawPost('/pager', { host: `127.0.0.1:${pager.port}`, 'content-type': 'application/json; charset=utf-8' }, body)).status, 200);
});

test('the log is capped: past maxLogBytes it moves to <log>.1 and a new one begins, so the disk holds at most twice the cap', async () => {
  const cappedLog = join(dir, 'capped.jsonl');
  const capped = await startPagerServer({ host: '127.0.0.1', port: 0, logFile: cappedLog, maxLogBytes: 4096 });
  try {
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`http://127.0.0.1:${capped.port}/pager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(notification({ alerts: [{ ...notification().alerts[0], fingerprint: `n${i}` }] })) });
      assert.equal(response.status, 200);
    }
    assert.ok(statSync(cappedLog).size <= 4096, `the log holds ${statSync(cappedLog).size} bytes`);
    assert.ok(statSync(`${cappedLog}.1`).size <= 4096);
    const newest = readFileSync(cappedLog, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { fingerprint: string }).fingerprint);
    assert.equal(newest.at(-1), 'n39', 'the newest alert is in the log');
    const older = readFileSync(`${cappedLog}.1`, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { fingerprint: string }).fingerprint);
    assert.equal(Number(older.at(-1)!.slice(1)) + 1, Number(newest[0]!.slice(1)), 'the rotated file ends where the log begins');
  } finally {
    await capped.close();
  }
});
