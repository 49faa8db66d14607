import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readModelSnapshot, writeModelSnapshot } from './model-snapshot-file.ts';

const root = mkdtempSync(join(tmpdir(), 'model-snapshot-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('a snapshot is written whole, owner-only, named by its index, and read back as written', () => {
  const dir = join(root, 'db-snapshots');
  const rows = { appliedIndex: 17, tables: { identities: [{ id: 'a', createdAt: 'x', updatedAt: 'x' }] } };
  const path = writeModelSnapshot(dir, rows, Date.UTC(2026, 10, 29, 8, 0, 0));
  assert.equal(path, join(dir, 'model-17-2026-11-29T08-00-00-000Z.json'));
  assert.deepEqual(readdirSync(dir), ['model-17-2026-11-29T08-00-00-000Z.json'], 'no temporary file is left');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readModelSnapshot(path), { format: 'edgeward-model-snapshot/1', appliedIndex: 17, takenAt: '2026-11-29T08:00:00.000Z', tables: rows.tables });
  const junk = join(root, 'junk.json');
  writeFileSync(junk, '{"tables": {}}');
  assert.throws(() => readModelSnapshot(junk), /is not an edgeward model snapshot/);
});
