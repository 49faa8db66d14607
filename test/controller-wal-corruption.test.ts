// The raft log on disk, as a real controller process reads it at start: a final record a crash tore is dropped and
// the controller starts; a record damaged in the middle of the log, with intact records after it, stops the start
// with the segment and byte and a pointer to the runbook, and the file is left as it was.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readRecord } from '../server/raft/storage/wal-record.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
before(async () => {
  controller = await ControllerFixture.create({ id: 'ctrl-wal' });
});
after(async () => {
  await controller.dispose();
});

/** The newest segment holding records, and where each of its records starts and ends. */
function lastSegment(): { file: string; records: Array<{ offset: number; end: number }> } {
  const dir = join(controller.dataDir, 'raft.db');
  const segments = readdirSync(dir).filter((name) => /^wal-\d{10}\.log$/.test(name)).sort().reverse();
  for (const name of segments) {
    const bytes = readFileSync(join(dir, name));
    const records: Array<{ offset: number; end: number }> = [];
    for (let offset = 0; ; ) {
      const result = readRecord(bytes, offset);
      if (result.kind !== 'record') break;
      records.push({ offset, end: offset + result.length });
      offset += result.length;
    }
    if (records.length > 0) return { file: join(dir, name), records };
  }
  throw new Error('no segment holds records');
}

async function createIdentities(names: string[]): Promise<string[]> {
  const headers = { 'zt-session': await controller.adminToken() };
  const ids: string[] = [];
  for (const name of names) {
    const created = await controller.http.post(`${controller.managementApi}/identities`, { headers, body: { name, isAdmin: false } });
    assert.equal(created.status, 201, created.text);
    ids.push(created.json.data.id as string);
  }
  return ids;
}

test('`controller run` drops a torn final record and serves, but stops at a damaged record with intact records after it, naming the segment, the byte and the runbook', async () => {
  // A write a crash cut short: dropped, and the controller starts with what was written before it.
  const [kept] = await createIdentities(['kept-1', 'kept-2']);
  assert.equal(await controller.stop('SIGTERM'), 0);
  const torn = lastSegment();
  const final = torn.records.at(-1)!;
  // The second half of the final record is still the preallocated zeros.
  const bytes = readFileSync(torn.file);
  bytes.fill(0, final.offset + Math.ceil((final.end - final.offset) / 2), final.end);
  writeFileSync(torn.file, bytes);
  await controller.start();
  const headers = { 'zt-session': await controller.adminToken() };
  const read = await controller.http.get(`${controller.managementApi}/identities/${kept}`, { headers });
  assert.equal(read.status, 200, read.text);

  // A record damaged with acknowledged records after it: corruption, and the controller refuses to start.
  await createIdentities(['more-1', 'more-2', 'more-3']);
  assert.equal(await controller.stop('SIGTERM'), 0);
  const { file, records } = lastSegment();
  assert.ok(records.length >= 4, `${records.length} records in the last segment`);
  const victim = records.at(-3)!;
  const before = readFileSync(file);
  const damaged = Buffer.from(before);
  damaged[victim.offset + 12] = damaged[victim.offset + 12]! ^ 0x20;
  writeFileSync(file, damaged);

  const { file: node, args, env } = controller.command();
  const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  assert.equal(code, 1, stderr);
  const name = file.split('/').at(-1)!;
  assert.match(stderr, new RegExp(`error: the controller did not start: .*raft\\.db/${name.replace('.', '\\.')}: record at byte ${victim.offset} is corrupt \\(crc mismatch\\), yet an intact record follows at byte ${victim.end}: this is not a torn write`));
  assert.match(stderr, /see "Raft log corruption" in docs\/runbooks\.md/);
  // Nothing was zeroed or truncated: the operator's copy is intact for recovery.
  assert.deepEqual(readFileSync(file), damaged);
});
