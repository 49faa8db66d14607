// The backup schedule as an operator sees it in the backup folder and the log: a backup each interval (the first one
// an interval after start, jittered), the newest `retain` kept and nothing else in the folder touched, a failure
// logged and retried at the next interval, nothing at all when the interval is 0, nothing more after stop.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { backupJitterMs, startBackupSchedule, type BackupTimers } from './backup-schedule.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-backup-schedule-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Timers a test fires by hand: the one pending wait and its length. */
class ManualTimers implements BackupTimers {
  pending: { run: () => void; ms: number } | undefined;
  setTimeout(run: () => void, ms: number): unknown {
    assert.equal(this.pending, undefined, 'one wait at a time');
    this.pending = { run, ms };
    return this.pending;
  }
  clearTimeout(handle: unknown): void {
    if (handle === this.pending) this.pending = undefined;
  }
  /** Fires the pending wait and lets the backup it starts finish (bounded). */
  async fire(): Promise<void> {
    const pending = this.pending;
    assert.ok(pending, 'a wait is pending');
    this.pending = undefined;
    pending.run();
    const deadline = Date.now() + 5000;
    while (this.pending === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Writes a backup file named as the database admin names them, each one second newer than the last. */
function fakeDatabase(dir: string, failures: Error[] = []) {
  let index = 100;
  const calls: unknown[] = [];
  return {
    calls,
    async snapshot(options: { dir: string; trigger: 'schedule' }) {
      calls.push(options);
      const failure = failures.shift();
      if (failure) throw failure;
      index += 10;
      const path = join(dir, `model-${index}-2026-11-29T17-00-${String(index).padStart(3, '0')}Z.json`);
      writeFileSync(path, '{}');
      const time = new Date(Date.UTC(2026, 10, 29, 17, 0, 0) + index * 1000);
      utimesSync(path, time, time);
      return { path };
    },
  };
}

test('a backup each interval, first one interval (plus jitter) after start; the newest `retain` kept and other files left alone', async () => {
  const dir = join(root, 'kept', 'backups');
  const timers = new ManualTimers();
  const logger = createMemoryLogger();
  const database = fakeDatabase(dir);
  const stop = startBackupSchedule({ intervalMs: 60_000, dir, retain: 2, database, logger, timers, random: () => 0.5 });
  assert.equal(statSync(dir).mode & 0o777, 0o700, 'the folder is made private');
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  writeFileSync(join(dir, 'model-1-old.json.tmp'), 'a half-written file is not a backup');
  writeFileSync(join(dir, 'other-model-1-x.json'), 'not ours');
  writeFileSync(join(dir, 'model-1-my-notes.json'), 'not named as a backup');

  assert.equal(timers.pending?.ms, 60_000 + backupJitterMs(60_000) / 2, 'the first backup an interval after start, jittered');
  assert.deepEqual(database.calls, [], 'nothing written at start');
  for (let i = 0; i < 4; i++) await timers.fire();
  assert.deepEqual(database.calls, Array(4).fill({ dir, trigger: 'schedule' }));
  assert.deepEqual(readdirSync(dir).sort(), ['model-1-my-notes.json', 'model-1-old.json.tmp', 'model-130-2026-11-29T17-00-130Z.json', 'model-140-2026-11-29T17-00-140Z.json', 'notes.txt', 'other-model-1-x.json']);
  assert.deepEqual(
    logger.lines.filter((line) => line.msg === 'old backup deleted').map((line) => line.path),
    [join(dir, 'model-110-2026-11-29T17-00-110Z.json'), join(dir, 'model-120-2026-11-29T17-00-120Z.json')],
  );
  assert.ok(timers.pending, 'the next backup is scheduled');
  await stop();
  assert.equal(timers.pending, undefined, 'stopped: no backup scheduled');
});

test('a failed backup is logged with its error and retried at the next interval; a failed delete is logged', async () => {
  const dir = join(root, 'failing');
  const timers = new ManualTimers();
  const logger = createMemoryLogger();
  const database = fakeDatabase(dir, [new Error('EACCES: permission denied, open backups/model-110.json.tmp')]);
  const stop = startBackupSchedule({
    intervalMs: 1000,
    dir,
    retain: 1,
    database,
    logger,
    timers,
    random: () => 0,
    folder: {
      list: async () => [
        { name: 'model-5-2026-11-29T17-00-00-000Z.json', modifiedMs: 1 },
        { name: 'model-6-2026-11-29T17-10-00-000Z.json', modifiedMs: 2 },
      ],
      remove: async (path) => {
        throw new Error(`EBUSY: ${path}`);
      },
    },
  });
  assert.equal(timers.pending?.ms, 1000);
  await timers.fire();
  const failed = logger.lines.find((line) => line.msg === 'scheduled backup failed');
  assert.equal(failed?.level, 'warn');
  assert.equal(failed?.error, 'EACCES: permission denied, open backups/model-110.json.tmp');
  assert.equal(timers.pending?.ms, 1000, 'tried again at the next interval');
  await timers.fire();
  assert.equal(database.calls.length, 2);
  assert.ok(logger.lines.some((line) => line.msg === 'scheduled backup written'));
  const notDeleted = logger.lines.find((line) => line.msg === 'old backup not deleted');
  assert.equal(notDeleted?.path, join(dir, 'model-5-2026-11-29T17-00-00-000Z.json'), 'the oldest beyond retain');
  assert.equal(notDeleted?.error, `EBUSY: ${join(dir, 'model-5-2026-11-29T17-00-00-000Z.json')}`);
  await stop();
});

test('an interval of 0 schedules nothing', async () => {
  const timers = new ManualTimers();
  const logger = createMemoryLogger();
  const database = fakeDatabase(join(root, 'off'));
  const stop = startBackupSchedule({ intervalMs: 0, dir: join(root, 'off'), retain: 8, database, logger, timers });
  assert.equal(timers.pending, undefined);
  assert.equal(logger.lines[0]?.msg, 'backup schedule off');
  await stop();
  assert.deepEqual(database.calls, []);
});

test('stop waits for a backup in progress and schedules no other', async () => {
  const dir = join(root, 'stopping');
  const timers = new ManualTimers();
  let finish: () => void = () => undefined;
  let written = false;
  const stop = startBackupSchedule({
    intervalMs: 5000,
    dir,
    retain: 8,
    logger: createMemoryLogger(),
    timers,
    random: () => 0,
    database: {
      snapshot: () =>
        new Promise((resolve) => {
          finish = () => {
            written = true;
            resolve({ path: join(dir, 'model-1-x.json') });
          };
        }),
    },
  });
  timers.pending!.run();
  timers.pending = undefined;
  const stopping = stop();
  setTimeout(() => finish(), 20);
  await stopping;
  assert.ok(written, 'stop resolved after the backup finished');
  assert.equal(timers.pending, undefined, 'no backup scheduled after stop');
});
