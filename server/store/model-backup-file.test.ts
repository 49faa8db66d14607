import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BackupFileError, backupFileName, isBackupFileName, newestBackupIn, readBackupFile, writeBackupFile, type BackupProblem } from './model-backup-file.ts';

const root = mkdtempSync(join(tmpdir(), 'model-backup-'));
after(() => rmSync(root, { recursive: true, force: true }));

const header = { edgewardVersion: 'v1.2.3', clusterId: 'c0ffee00-1111', trustDomain: 'edgeward.test', controllerId: 'ctrl1', index: 1234, term: 7, takenAt: '2026-11-29T08:00:00.000Z' };
// More rows than one line holds, with text that needs escaping and non-ASCII.
const identities = Array.from({ length: 1203 }, (_, n) => ({ id: `id-${n}`, name: `user "${n}"\n\u00e9\u4e2d`, createdAt: 'x', updatedAt: 'x' }));
const tables = { identities, services: [{ id: 's1', name: 'web' }], empty: [] };

async function written(name: string): Promise<string> {
  const { path } = await writeBackupFile(join(root, name, backupFileName(header.index, header.takenAt)), header, tables);
  return path;
}

async function refusal(path: string): Promise<{ problem: BackupProblem; message: string }> {
  try {
    await readBackupFile(path);
  } catch (error) {
    assert.ok(error instanceof BackupFileError, String(error));
    return { problem: error.problem, message: error.message };
  }
  assert.fail('the file was accepted');
}

test('a backup is written whole, owner-only, named by index and time, and read back with its header and checksum', async () => {
  const path = await written('whole');
  assert.equal(path, join(root, 'whole', 'model-1234-2026-11-29T08-00-00-000Z.json'));
  assert.ok(isBackupFileName('model-1234-2026-11-29T08-00-00-000Z.json'));
  assert.ok(!isBackupFileName('model-1234.json.tmp') && !isBackupFileName('ctrl.db'));
  assert.deepEqual(readdirSync(join(root, 'whole')), ['model-1234-2026-11-29T08-00-00-000Z.json'], 'no temporary file is left');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(root, 'whole')).mode & 0o777, 0o700);
  const contents = await readBackupFile(path);
  assert.deepEqual(contents.header, { format: 'edgeward-backup/2', ...header, tables: { identities: 1203, services: 1, empty: 0 } });
  assert.deepEqual(contents.tables, tables);
  assert.equal(contents.sizeBytes, statSync(path).size);
  assert.match(contents.sha256, /^[0-9a-f]{64}$/);
  assert.ok(readFileSync(path, 'utf8').split('\n').length > 4, 'rows are spread over lines');
});

test('a truncated, damaged, foreign-format or non-backup file is refused with its problem named', async () => {
  const path = await written('damaged');
  const bytes = readFileSync(path);

  const cut = join(root, 'cut.json');
  writeFileSync(cut, bytes);
  truncateSync(cut, Math.floor(bytes.length * 0.6));
  assert.deepEqual((await refusal(cut)).problem, 'truncated');
  const lastLineGone = join(root, 'no-end.json');
  writeFileSync(lastLineGone, bytes.subarray(0, bytes.lastIndexOf('{"end"')));
  const truncated = await refusal(lastLineGone);
  assert.equal(truncated.problem, 'truncated');
  assert.match(truncated.message, /no-end\.json: the file ends after \d+ bytes without its end mark/);

  const flipped = Buffer.from(bytes);
  const at = flipped.indexOf('"id-600"');
  assert.ok(at > 0);
  flipped[at + 4] = '7'.charCodeAt(0);
  const corrupt = join(root, 'flipped.json');
  writeFileSync(corrupt, flipped);
  const damaged = await refusal(corrupt);
  assert.equal(damaged.problem, 'corrupt');
  assert.match(damaged.message, /checksum mismatch/);

  const appended = join(root, 'appended.json');
  writeFileSync(appended, Buffer.concat([bytes, Buffer.from('{"table":"services","rows":[]}\n')]));
  assert.equal((await refusal(appended)).problem, 'corrupt');

  const oldRelease = join(root, 'old.json');
  writeFileSync(oldRelease, JSON.stringify({ format: 'edgeward-model-snapshot/1', appliedIndex: 3, takenAt: 'x', tables: {} }));
  const old = await refusal(oldRelease);
  assert.equal(old.problem, 'wrong-format');
  assert.match(old.message, /edgeward-model-snapshot\/1 file of an earlier release; this edgeward restores edgeward-backup\/2/);
  const future = join(root, 'future.json');
  writeFileSync(future, bytes.toString('utf8').replace('edgeward-backup/2', 'edgeward-backup/3'));
  assert.match((await refusal(future)).message, /the backup's format is edgeward-backup\/3; this edgeward restores edgeward-backup\/2/);

  for (const [name, text] of [['empty.json', ''], ['text.json', 'hello\nworld\n'], ['array.json', '[1,2]\n']] as const) {
    writeFileSync(join(root, name), text);
    assert.equal((await refusal(join(root, name))).problem, 'not-a-backup', name);
  }
  assert.equal((await refusal(join(root, 'missing.json'))).problem, 'unreadable');
});

test('a temporary file left by a writer that died is removed by the next backup; a live writer\'s is kept', async () => {
  const folder = join(root, 'abandoned');
  await writeBackupFile(join(folder, 'first.json'), header, tables);
  const dead = join(folder, '.model-9-x.json.2147483646.tmp');
  const live = join(folder, `.model-9-y.json.${process.ppid}.tmp`);
  writeFileSync(dead, 'half');
  writeFileSync(live, 'in progress');
  await writeBackupFile(join(folder, 'second.json'), header, tables);
  assert.deepEqual(readdirSync(folder).sort(), [`.model-9-y.json.${process.ppid}.tmp`, 'first.json', 'second.json']);
});

test('a failed write leaves no file behind', async () => {
  const folder = join(root, 'failing');
  const cyclic: Record<string, unknown> = { id: 'loop' };
  cyclic.self = cyclic;
  await assert.rejects(writeBackupFile(join(folder, 'model-1-x.json'), header, { identities: [cyclic as never] }), /circular/);
  assert.deepEqual(readdirSync(folder), []);
});

test('the newest backup of a folder is found by its header time; other files and other formats are passed over', async () => {
  const folder = join(root, 'newest');
  assert.equal(await newestBackupIn(folder), undefined, 'no folder');
  await writeBackupFile(join(folder, backupFileName(5, '2026-11-29T09:00:00.000Z')), { ...header, index: 5, takenAt: '2026-11-29T09:00:00.000Z' }, tables);
  const newer = await writeBackupFile(join(folder, backupFileName(4, '2026-11-29T10:00:00.000Z')), { ...header, index: 4, takenAt: '2026-11-29T10:00:00.000Z' }, { services: [] });
  writeFileSync(join(folder, backupFileName(9, '2026-11-29T11:00:00.000Z')), JSON.stringify({ format: 'edgeward-model-snapshot/1', takenAt: '2026-11-29T11:00:00.000Z' }));
  writeFileSync(join(folder, 'notes.txt'), 'x');
  assert.deepEqual(await newestBackupIn(folder), { path: newer.path, takenAt: '2026-11-29T10:00:00.000Z', sizeBytes: newer.sizeBytes });
});
