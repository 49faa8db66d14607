import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { DatabaseAdmin } from '../edge/database-admin.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import type { ModelStore } from '../store/model-store.ts';
import { integrityAgentCommands, integrityCheckRunning } from './integrity-agent-commands.ts';

const store = {
  table: (name: string) => {
    const rows = name === 'authenticators' ? [{ id: 'a1', identityId: 'gone', method: 'updb' }] : [];
    return { all: () => rows, get: (id: string) => rows.find((row) => row.id === id) };
  },
  entityTables: () => [],
} as unknown as ModelStore;

test('the agent starts a check as the API does, refuses a second while it runs with a clear message, and answers the report', async () => {
  let release!: () => void;
  const writer = { write: () => new Promise((resolve) => (release = () => resolve({ value: undefined, index: 1 }))) } as unknown as ModelWriter;
  const database = new DatabaseAdmin({ store, writer, clock: new ManualClock(), defaultBackupDir: '/backups', origin: { controllerId: 'c', trustDomain: 't', edgewardVersion: 'v' }, writeBackup: async (path: string) => ({ path, sizeBytes: 0, sha256: '' }), yieldNow: async () => undefined });
  const commands = new Map(integrityAgentCommands(database));
  const started = (await commands.get('controller.checkIntegrity')!({ fix: true })) as { started: boolean; fixing: boolean; startTime: string };
  assert.deepEqual(started, { started: true, fixing: true, startTime: database.results().startTime });
  await assert.rejects(commands.get('controller.checkIntegrity')!({}), (error: Error) => error.message === integrityCheckRunning);
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await database.settled();
  const report = (await commands.get('controller.integrityResults')!({})) as ReturnType<DatabaseAdmin['results']>;
  assert.deepEqual(report.results, [{ description: 'authenticator a1 (updb) belongs to identity gone, which does not exist', fixed: true }]);
  await commands.get('controller.checkIntegrity')!({ fix: 'yes' });
  await database.settled();
  assert.equal(database.results().fixingErrors, false, 'only fix: true fixes');
});
