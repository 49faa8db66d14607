import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import type { ModelStore } from '../store/model-store.ts';
import { DatabaseAdmin } from './database-admin.ts';
import { EdgeError } from './edge-error.ts';
import type { ModelWriter } from './model-writer.ts';

const at = '2026-01-01T00:00:00.000Z';
const store = {
  table: (name: string) => {
    const rows = name === 'authenticators' ? [{ id: 'a1', identityId: 'gone', method: 'updb' }] : [];
    return { all: () => rows, get: (id: string) => rows.find((row) => row.id === id) };
  },
  exportRows: () => ({ appliedIndex: 42, appliedTerm: 3, tables: { identities: [{ id: 'x', createdAt: at, updatedAt: at }] } }),
} as unknown as ModelStore;
const origin = { controllerId: 'ctrl1', trustDomain: 'edgeward.test', edgewardVersion: 'v9' };
const backupDeps = { defaultBackupDir: '/backups', origin, writeBackup: async (path: string) => ({ path, sizeBytes: 10, sha256: 'ab' }) };

test('one check at a time: a second start while a fix runs is refused; the report says what was fixed', async () => {
  let release!: () => void;
  const written: unknown[] = [];
  const writer = { write: async (command: unknown) => (written.push(command), await new Promise<void>((resolve) => (release = resolve)), { value: undefined, index: 1 }) } as unknown as ModelWriter;
  const admin = new DatabaseAdmin({ store, writer, clock: new ManualClock(), ...backupDeps });
  admin.start(true);
  assert.equal(admin.results().inProgress, true);
  assert.throws(() => admin.start(false), (error: unknown) => error instanceof EdgeError && error.code === 'SERVER_TOO_MANY_REQUESTS');
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await admin.settled();
  const report = admin.results();
  assert.deepEqual([report.inProgress, report.fixingErrors, report.results], [false, true, [{ description: 'authenticator a1 (updb) belongs to identity gone, which does not exist', fixed: true }]]);
  assert.deepEqual(written, [{ type: 'authenticator.delete', id: 'a1' }]);
  admin.start(false);
  await admin.settled();
  assert.equal(admin.results().results[0]!.fixed, false, 'a check alone fixes nothing');
});

test('a refused fix is reported, not thrown', async () => {
  const writer = { write: async () => Promise.reject(new Error('leaderless')) } as unknown as ModelWriter;
  const admin = new DatabaseAdmin({ store, writer, clock: new ManualClock(), ...backupDeps });
  admin.start(true);
  await admin.settled();
  assert.deepEqual([admin.results().results[0]!.fixed, admin.results().error], [false, 'a fix was refused: leaderless']);
});

test('a backup is of the rows as applied, with their index, term and origin, named by index and time', async () => {
  const seen: unknown[] = [];
  const clock = new ManualClock(Date.parse(at));
  const admin = new DatabaseAdmin({ store, writer: {} as ModelWriter, clock, ...backupDeps, writeBackup: async (path, header, tables) => (seen.push({ path, header, tables }), { path, sizeBytes: 10, sha256: 'ab' }) });
  const outcomes: unknown[] = [];
  admin.onSnapshot((outcome) => outcomes.push(outcome));
  const written = await admin.snapshot();
  assert.deepEqual(written, { path: '/backups/model-42-2026-01-01T00-00-00-000Z.json', index: 42, term: 3, clusterId: '', sizeBytes: 10, sha256: 'ab', takenAt: at, durationMs: 0 });
  assert.deepEqual(seen, [{ path: written.path, header: { ...origin, clusterId: '', index: 42, term: 3, takenAt: at }, tables: store.exportRows().tables }]);
  assert.equal((await admin.snapshot({ out: '/elsewhere/one.json' })).path, '/elsewhere/one.json');
  assert.match((await admin.snapshot({ dir: '/scheduled', trigger: 'schedule' })).path, /^\/scheduled\/model-42-/);
  assert.deepEqual(outcomes.map((outcome: any) => [outcome.ok, outcome.trigger]), [[true, 'request'], [true, 'request'], [true, 'schedule']]);
});

test('backups are written one at a time, at most four wait, and a failure is heard and thrown', async () => {
  let active = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  const admin = new DatabaseAdmin({
    store,
    writer: {} as ModelWriter,
    clock: new ManualClock(),
    ...backupDeps,
    writeBackup: async (path) => {
      active += 1;
      most = Math.max(most, active);
      await new Promise<void>((resolve) => gates.push(resolve));
      active -= 1;
      if (path.includes('full')) throw new Error('ENOSPC: no space left on device');
      return { path, sizeBytes: 1, sha256: 'x' };
    },
  });
  const outcomes: any[] = [];
  admin.onSnapshot((outcome) => outcomes.push(outcome));
  const first = admin.snapshot({ out: '/full/a.json', trigger: 'schedule' });
  for (let wait = 0; wait < 100 && gates.length === 0; wait++) await new Promise((resolve) => setImmediate(resolve));
  const queued = [1, 2, 3, 4].map((n) => admin.snapshot({ out: `/b${n}.json` }));
  await assert.rejects(admin.snapshot(), (error: unknown) => error instanceof EdgeError && error.code === 'SERVER_TOO_MANY_REQUESTS');
  for (let round = 0; round < 5; round++) {
    for (let wait = 0; wait < 100 && gates.length === 0; wait++) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
  }
  await assert.rejects(first, /ENOSPC/);
  assert.deepEqual((await Promise.all(queued)).map((written) => written.path), ['/b1.json', '/b2.json', '/b3.json', '/b4.json']);
  assert.equal(most, 1, 'never two at once');
  assert.deepEqual(outcomes[0], { ok: false, trigger: 'schedule', error: 'ENOSPC: no space left on device' });
  assert.equal(outcomes.length, 5);
});
