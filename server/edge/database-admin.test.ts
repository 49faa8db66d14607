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
  exportRows: () => ({ appliedIndex: 42, tables: { identities: [{ id: 'x', createdAt: at, updatedAt: at }] } }),
} as unknown as ModelStore;

test('one check at a time: a second start while a fix runs is refused; the report says what was fixed', async () => {
  let release!: () => void;
  const written: unknown[] = [];
  const writer = { write: async (command: unknown) => (written.push(command), await new Promise<void>((resolve) => (release = resolve)), { value: undefined, index: 1 }) } as unknown as ModelWriter;
  const admin = new DatabaseAdmin({ store, writer, clock: new ManualClock(), writeSnapshot: () => '/nowhere' });
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
  const admin = new DatabaseAdmin({ store, writer, clock: new ManualClock(), writeSnapshot: () => '/nowhere' });
  admin.start(true);
  await admin.settled();
  assert.deepEqual([admin.results().results[0]!.fixed, admin.results().error], [false, 'a fix was refused: leaderless']);
});

test('a snapshot is of the rows as applied, with their index', () => {
  let seen: unknown;
  const admin = new DatabaseAdmin({ store, writer: {} as ModelWriter, clock: new ManualClock(), writeSnapshot: (rows) => ((seen = rows), '/snap') });
  assert.deepEqual(admin.snapshot(), { path: '/snap', appliedIndex: 42 });
  assert.deepEqual(seen, store.exportRows());
});
