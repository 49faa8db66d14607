import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { ManualClock } from '../../common/time/clock.ts';
import { EdgeDb, loadEdgeSnapshot } from './edge-db.ts';
import { decodeEdgeSnapshot, EdgeModelHolder, encodeEdgeSnapshot } from './edge-model-snapshot.ts';

const model = { services: [{ id: 's1', name: 'web', roleAttributes: ['public'] }], identities: [{ id: 'i1', name: 'alice', roleAttributes: [] }] };

describe('edge model', () => {
  it('keeps the model of the highest index and ignores older ones', () => {
    const holder = new EdgeModelHolder();
    assert.equal(holder.offer(5, model), true);
    assert.equal(holder.offer(4, { services: [], identities: [] }), false);
    assert.equal(holder.offer(5, { services: [], identities: [] }), false);
    assert.deepEqual(holder.current, { index: 5, model });
    assert.equal(holder.dirty, true);
    holder.markSaved(5);
    assert.equal(holder.dirty, false);
  });

  it('round-trips through its gzipped JSON snapshot', () => {
    const bytes = encodeEdgeSnapshot({ index: 7, model }, Date.UTC(2026, 0, 1));
    assert.deepEqual(decodeEdgeSnapshot(bytes), { index: 7, model });
    assert.equal(JSON.parse(gunzipSync(bytes).toString()).format, 'edgeward.edge-model.v1');
  });

  it('refuses bytes that are not a snapshot, saying why', () => {
    assert.throws(() => decodeEdgeSnapshot(Buffer.from('nope')), /not gzip/);
    assert.throws(() => decodeEdgeSnapshot(gzipSync('{')), /not JSON/);
    assert.throws(() => decodeEdgeSnapshot(gzipSync('{"format":"other"}')), /not an edgeward.edge-model.v1 snapshot/);
  });
});

describe('edge db file', () => {
  it('starts empty with an info line when missing, and with a warning when corrupt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-edgedb-'));
    const logger = createMemoryLogger();
    assert.equal(await loadEdgeSnapshot(join(dir, 'missing.proto.gzip'), logger), undefined);
    writeFileSync(join(dir, 'bad.proto.gzip'), 'garbage');
    assert.equal(await loadEdgeSnapshot(join(dir, 'bad.proto.gzip'), logger), undefined);
    assert.deepEqual(logger.lines.map((line) => [line.level, line.msg]), [
      ['info', 'no edge db yet: starting with an empty edge model'],
      ['warn', 'edge db is corrupt: starting with an empty edge model'],
    ]);
  });

  it('saves only when the model changed, and loads what it saved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-edgedb-'));
    const path = join(dir, 'router.yml.proto.gzip');
    const logger = createMemoryLogger();
    const holder = new EdgeModelHolder();
    const db = new EdgeDb(path, 60_000, holder, new ManualClock(), logger);
    await db.saveIfChanged();
    assert.equal(logger.lines.length, 0);
    holder.offer(3, model);
    await db.saveIfChanged();
    const first = readFileSync(path);
    await db.saveIfChanged();
    assert.equal(logger.lines.filter((line) => line.msg === 'edge db saved').length, 1);
    assert.deepEqual(first, readFileSync(path));
    assert.deepEqual(await loadEdgeSnapshot(path, logger), { index: 3, model });
  });
});
