import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openNotifySocket } from '../../test/support/notify-socket.ts';
import { serviceNotifier, watchdogIntervalMs } from './service-notifier.ts';

test('watchdog pings come at half of WATCHDOG_USEC, only for the process WATCHDOG_PID names', () => {
  assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000' }, 42), 15_000);
  assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '42' }, 42), 15_000);
  assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '7' }, 42), undefined);
  assert.equal(watchdogIntervalMs({}, 42), undefined);
  assert.equal(watchdogIntervalMs({ WATCHDOG_USEC: 'x' }, 42), undefined);
});

test('without NOTIFY_SOCKET nothing is sent', async () => {
  const notifier = serviceNotifier({ env: {}, program: '/nonexistent/systemd-notify', onError: (message) => assert.fail(message) });
  assert.equal(notifier.enabled, false);
  notifier.ready('serving');
  notifier.stopping();
  await notifier.flush();
});

test('READY=1, WATCHDOG=1 at half the watchdog period and STOPPING=1 reach a real notification socket', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-notify-'));
  const socket = await openNotifySocket(dir);
  try {
    const errors: string[] = [];
    // 400 ms watchdog: a ping every 200 ms.
    const notifier = serviceNotifier({ env: { NOTIFY_SOCKET: socket.path, WATCHDOG_USEC: '400000', PATH: process.env.PATH }, onError: (message) => errors.push(message) });
    assert.equal(notifier.enabled, true);
    const started = Date.now();
    notifier.ready('serving on 127.0.0.1:1');
    const ready = await socket.waitFor((message) => message.includes('READY=1'), 5000, 'READY=1');
    assert.match(ready, /STATUS=serving on 127\.0\.0\.1:1/);
    assert.match(ready, new RegExp(`MAINPID=${process.pid}`));
    await socket.waitFor(() => socket.messages.filter((message) => message === 'WATCHDOG=1' || message.startsWith('WATCHDOG=1\n') || message.endsWith('\nWATCHDOG=1')).length >= 3, 5000, 'three WATCHDOG=1');
    assert.ok(Date.now() - started >= 350, 'the pings are spaced by half the watchdog period');
    notifier.stopping();
    await notifier.flush();
    await socket.waitFor((message) => message.includes('STOPPING=1'), 5000, 'STOPPING=1');
    const count = socket.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(socket.messages.filter((message) => message.includes('WATCHDOG=1')).length, socket.messages.slice(0, count).filter((message) => message.includes('WATCHDOG=1')).length, 'no ping after STOPPING=1');
    assert.deepEqual(errors, []);
  } finally {
    await socket.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing systemd-notify is reported once, not thrown', async () => {
  const errors: string[] = [];
  const notifier = serviceNotifier({ env: { NOTIFY_SOCKET: '/nonexistent.sock' }, program: '/nonexistent/systemd-notify', onError: (message) => errors.push(message) });
  notifier.ready();
  notifier.status('x');
  await notifier.flush();
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /cannot run \/nonexistent\/systemd-notify/);
});
