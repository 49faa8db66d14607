// The events file handler's maxsizemb and maxbackups, against a real controller: its events file is rotated past
// its size, only the newest maxbackups rotated files are kept, and no event is lost or split across a rotation.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';

let controller: ControllerFixture;
let headers: Record<string, string>;
before(async () => {
  controller = await ControllerFixture.create({
    editConfig: (yaml) => yaml.replace('maxsizemb: 10', 'maxsizemb: 1').replace('maxbackups: 0', 'maxbackups: 1'),
  });
  headers = { 'zt-session': await controller.adminToken() };
});
after(async () => controller?.dispose());

interface EntityChange {
  namespace: string;
  eventType: string;
  entityType: string;
  raftIndex: number;
  finalState?: { id: string; name: string };
}

test('past maxsizemb the events file is rotated beside itself; maxbackups 1 keeps one rotated file; nothing is lost', async () => {
  const mib = 1024 * 1024;
  const folder = dirname(controller.eventsFile);
  const rotated = () => readdirSync(folder).filter((name) => /^events-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.jsonl$/.test(name));
  // Each create's event carries the identity's tags, over 3,000 bytes: 112 batches of 8 write more than 2.5 MiB,
  // so the file is rotated at least twice.
  const note = 'n'.repeat(3000);
  const batches = 112;
  const names: string[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const created = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const name = `rotated-${batch}-${i}`;
        const response = await controller.http.post(`${controller.managementApi}/identities`, { headers, body: { name, isAdmin: false, tags: { note } } });
        assert.equal(response.status, 201, response.text);
        return name;
      }),
    );
    names.push(...created);
  }
  // The last create's event is written on the tick after its answer.
  const read = (file: string) => readFileSync(join(folder, file), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as EntityChange);
  const last = names[names.length - 1]!;
  for (let i = 0; i < 50 && !read('events.jsonl').some((event) => event.finalState?.name === last); i++) await new Promise((resolve) => setTimeout(resolve, 50));

  const backups = rotated();
  assert.equal(backups.length, 1, `one rotated file kept (maxbackups: 1), found ${readdirSync(folder).join(', ')}`);
  for (const file of [...backups, 'events.jsonl']) assert.ok(statSync(join(folder, file)).size <= mib, `${file} is at most maxsizemb`);
  const kept = [...read(backups[0]!), ...read('events.jsonl')];
  const creates = kept.filter((event) => event.namespace === 'entityChange' && event.eventType === 'created' && event.entityType === 'identities');
  const indexes = creates.map((event) => event.raftIndex);
  assert.deepEqual(indexes, [...indexes].sort((a, b) => a - b), 'the rotated file holds the older events, in log order');
  // The two files hold an unbroken run of the newest creates (within a batch of 8 the log order is the server's).
  const batchOf = (name: string) => Number(name.split('-')[1]);
  const keptNames = creates.map((event) => event.finalState!.name);
  assert.equal(new Set(keptNames).size, keptNames.length, 'no event written twice');
  assert.ok(keptNames.length > 300 && keptNames.length < names.length, `${keptNames.length} of ${names.length} creates kept`);
  const oldestBatch = Math.min(...keptNames.map(batchOf));
  const expected = names.filter((name) => batchOf(name) > oldestBatch);
  const missing = expected.filter((name) => !keptNames.includes(name));
  assert.deepEqual(missing, [], 'every create after the oldest kept batch is there, the last one included');
});
