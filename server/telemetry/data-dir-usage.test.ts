import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DataDirUsageCache, emptyUsage } from './data-dir-usage.ts';

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgeward-usage-'));
  mkdirSync(join(dir, 'raft.db', 'nested'), { recursive: true });
  writeFileSync(join(dir, 'raft.db', 'wal-0000000001.log'), Buffer.alloc(1000));
  writeFileSync(join(dir, 'raft.db', 'nested', 'meta'), Buffer.alloc(24));
  mkdirSync(join(dir, 'snapshots'));
  writeFileSync(join(dir, 'snapshots', '2-40.snap'), Buffer.alloc(300));
  writeFileSync(join(dir, 'snapshots', '3-90.snap'), Buffer.alloc(500));
  writeFileSync(join(dir, 'snapshots', '3-95.snap.tmp'), Buffer.alloc(7));
  utimesSync(join(dir, 'snapshots', '3-90.snap'), 1_700_000_000, 1_700_000_000);
  return dir;
}

test('bytes under raft.db and snapshots, and the newest snapshot by index, are measured in the background', async () => {
  const dir = dataDir();
  try {
    const cache = new DataDirUsageCache(dir);
    assert.equal(cache.current(), emptyUsage, 'the first read does not wait for the disk');
    await cache.refresh();
    assert.deepEqual(cache.current(), {
      raftLogBytes: 1024,
      snapshotsBytes: 807,
      newestSnapshot: { index: 90, term: 3, bytes: 500, writtenAtSeconds: 1_700_000_000 },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a measurement is reused until it is older than the refresh interval; a missing directory counts as empty', async () => {
  const dir = dataDir();
  let now = 0;
  try {
    const cache = new DataDirUsageCache(dir, { refreshMs: 10_000, now: () => now });
    await cache.refresh();
    writeFileSync(join(dir, 'snapshots', '4-120.snap'), Buffer.alloc(100));
    now = 9_000;
    assert.equal(cache.current().newestSnapshot?.index, 90);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(cache.current().newestSnapshot?.index, 90, 'a fresh measurement is served without looking again');
    now = 10_001;
    assert.equal(cache.current().newestSnapshot?.index, 90, 'a stale one still answers at once...');
    await cache.refresh(); // joins the measurement that read started
    assert.equal(cache.current().newestSnapshot?.index, 120, '...and the next read sees the new state');
    rmSync(join(dir, 'snapshots'), { recursive: true });
    now = 20_100;
    cache.current();
    await cache.refresh();
    assert.equal(cache.current().snapshotsBytes, 0);
    assert.equal(cache.current().newestSnapshot, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
