import assert from 'node:assert/strict';
import fs from 'node:fs';
import { copyFile, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, mock, test } from 'node:test';
import type { Entry, HardState } from '../core/types.ts';
import { logStoreContract } from './raft-storage-contract.ts';
import { WalRaftStore, type WalRaftStoreOptions } from './wal-raft-store.ts';
import { readRecord, type WalRecord } from './wal-record.ts';
import { segmentName } from './wal-segments.ts';
import { tempRaftDb } from './temp-raft-db.ts';

const tempDb = () => tempRaftDb('wal');

function harness(options: WalRaftStoreOptions) {
  return async () => {
    const { path, remove } = await tempDb();
    let current = await WalRaftStore.open(path, options);
    return {
      store: current,
      reopen: async () => {
        await current.close();
        return (current = await WalRaftStore.open(path, options));
      },
      cleanup: async () => {
        await current.close();
        await remove();
      },
    };
  };
}

logStoreContract('WalRaftStore', harness({ segmentBytes: 1 << 20 }));
// Segments of one page: nearly every test rotates, and large batches get segments of their own.
logStoreContract('WalRaftStore with 4 KiB segments', harness({ segmentBytes: 4096 }));

const entry = (index: number, term: number, data: unknown = { type: 'set', key: `k${index}`, pad: 'x'.repeat(100) }): Entry => ({ index, term, type: 'normal', data });
const run = (from: number, to: number, term: number): Entry[] => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i, term));

async function segmentFiles(path: string): Promise<string[]> {
  return (await readdir(path)).filter((name) => /^wal-\d{10}\.log$/.test(name)).sort();
}

/** The records in a segment file, with their offsets, up to the end of written data (or a torn record). */
async function records(file: string): Promise<Array<{ offset: number; length: number; record: WalRecord }>> {
  const bytes = await readFile(file);
  const found: Array<{ offset: number; length: number; record: WalRecord }> = [];
  for (let offset = 0; ; ) {
    const result = readRecord(bytes, offset);
    if (result.kind !== 'record') return found;
    found.push({ offset, length: result.length, record: result.record });
    offset += result.length;
  }
}

async function overwrite(file: string, position: number, bytes: Buffer): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.write(bytes, 0, bytes.length, position);
  } finally {
    await handle.close();
  }
}

async function withStore(options: WalRaftStoreOptions, fn: (path: string, store: WalRaftStore) => Promise<void>): Promise<void> {
  const { path, remove } = await tempDb();
  const store = await WalRaftStore.open(path, options);
  try {
    await fn(path, store);
  } finally {
    await store.close();
    await remove();
  }
}

async function contents(store: WalRaftStore): Promise<{ first: number; last: number; hardState: HardState | undefined; entries: Array<[number, number]> }> {
  return {
    first: await store.firstIndex(),
    last: await store.lastIndex(),
    hardState: await store.hardState(),
    entries: (await store.entries(0, Number.MAX_SAFE_INTEGER)).map((e) => [e.index, e.term]),
  };
}

const span = (from: number, to: number, term: number): Array<[number, number]> => run(from, to, term).map((e) => [e.index, e.term]);

describe('WalRaftStore on disk', () => {
  test('a persist is one O_DSYNC write of one record, with no separate sync', async () => {
    await withStore({ segmentBytes: 1 << 16 }, async (path, store) => {
      await store.persist(run(1, 2, 1), { term: 1, vote: 'ctrl-a', commit: 0 }); // starts the first segment
      const writes = mock.method(fs, 'write');
      const fsyncs = mock.method(fs, 'fsync');
      const fdatasyncs = mock.method(fs, 'fdatasync');
      syncBuiltinESMExports();
      try {
        await store.persist(run(3, 3, 1), { term: 1, vote: 'ctrl-a', commit: 2 });
      } finally {
        mock.restoreAll();
        syncBuiltinESMExports();
      }
      assert.equal(writes.mock.callCount(), 1);
      assert.equal(fsyncs.mock.callCount() + fdatasyncs.mock.callCount(), 0);
      if (process.platform === 'linux') {
        const fd = writes.mock.calls[0]!.arguments[0] as number;
        const flags = /flags:\s+(\d+)/.exec(await readFile(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!;
        assert.ok((parseInt(flags, 8) & fs.constants.O_DSYNC) !== 0, `fd flags ${flags} lack O_DSYNC`);
      }

      const segment = join(path, segmentName(1));
      assert.equal((await stat(segment)).size, 1 << 16, 'the segment is preallocated');
      const written = await records(segment);
      assert.deepEqual(written.map((r) => r.record), [
        { k: { c: 0 } },
        { e: run(1, 2, 1), h: { term: 1, vote: 'ctrl-a', commit: 0 } },
        { e: run(3, 3, 1), h: { term: 1, vote: 'ctrl-a', commit: 2 } },
      ]);
      assert.deepEqual(await segmentFiles(path), [segmentName(1), segmentName(2)], 'the next segment is prepared ahead of need');
    });
  });

  test('entries, hard state and the compacted position survive a reopen, across segments', async () => {
    const { path, remove } = await tempDb();
    try {
      const store = await WalRaftStore.open(path, { segmentBytes: 4096 });
      for (let index = 1; index <= 60; index += 3) await store.persist(run(index, index + 2, 2), { term: 2, vote: 'ctrl-b', commit: index });
      await store.append(run(50, 55, 3)); // replaces 50..62
      await store.compact(9);
      await store.setHardState({ term: 3, vote: null, commit: 52 });
      const before = await contents(store);
      await store.close();
      assert.ok((await segmentFiles(path)).length > 3);
      const reopened = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.deepEqual(await contents(reopened), before);
      assert.deepEqual(before.entries, [...span(10, 49, 2), ...span(50, 55, 3)]);
      assert.deepEqual(before.hardState, { term: 3, vote: null, commit: 52 });
      assert.deepEqual(await reopened.entries(48, 51), [...run(48, 49, 2), ...run(50, 51, 3)]);
      await reopened.close();
    } finally {
      await remove();
    }
  });

  // A write cut in half leaves its second half as the preallocated zeros; a garbled one leaves other bytes.
  const damages: Record<string, (record: { length: number }) => Buffer> = {
    'cut in half': (record) => Buffer.alloc(record.length - Math.floor(record.length / 2)),
    'ending in garbage': () => Buffer.from('garbage!'),
  };
  for (const [damage, how] of Object.entries(damages)) {
    test(`a torn last record (${damage}) is dropped on reopen; later writes land after the rest and survive`, async () => {
      const { path, remove } = await tempDb();
      try {
        const store = await WalRaftStore.open(path, { segmentBytes: 1 << 16 });
        await store.persist(run(1, 3, 1), { term: 1, vote: 'ctrl-a', commit: 1 });
        await store.persist(run(4, 5, 2), { term: 2, vote: 'ctrl-b', commit: 3 });
        await store.close();
        const segment = join(path, segmentName(1));
        const last = (await records(segment)).at(-1)!;
        const bytes = how(last);
        await overwrite(segment, last.offset + last.length - bytes.length, bytes);

        const reopened = await WalRaftStore.open(path, { segmentBytes: 1 << 16 });
        assert.deepEqual(await contents(reopened), { first: 1, last: 3, hardState: { term: 1, vote: 'ctrl-a', commit: 1 }, entries: span(1, 3, 1) });
        const file = await readFile(segment);
        assert.ok(file.subarray(last.offset).every((byte) => byte === 0), 'the torn bytes are zeroed');
        await reopened.persist(run(4, 4, 3), { term: 3, vote: null, commit: 3 });
        await reopened.close();

        const again = await WalRaftStore.open(path, { segmentBytes: 1 << 16 });
        assert.deepEqual(await contents(again), { first: 1, last: 4, hardState: { term: 3, vote: null, commit: 3 }, entries: [...span(1, 3, 1), [4, 3]] });
        await again.close();
      } finally {
        await remove();
      }
    });
  }

  test('a rotation cut short leaves the log ending in the previous segment', async () => {
    const { path, remove } = await tempDb();
    try {
      const store = await WalRaftStore.open(path, { segmentBytes: 4096 });
      let index = 1;
      while ((await segmentFiles(path)).length < 3 || (await records(join(path, segmentName(2)))).length === 0) {
        await store.append(run(index, index, 1));
        index++;
      }
      await store.close();
      const lastIndex = index - 1;
      // Segment 2 holds the checkpoint and entry lastIndex, written as one buffer: the write was cut short after the
      // checkpoint's length, the rest still the preallocated zeros. The crash came during that write, so segment 3
      // (prepared once it returned) does not exist yet.
      const written = (await records(join(path, segmentName(2)))).reduce((end, record) => Math.max(end, record.offset + record.length), 0);
      await overwrite(join(path, segmentName(2)), 4, Buffer.alloc(written - 4));
      await rm(join(path, segmentName(3)));
      const reopened = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.equal(await reopened.lastIndex(), lastIndex - 1);
      await reopened.append(run(lastIndex, lastIndex + 1, 2));
      await reopened.close();
      const again = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.deepEqual((await again.entries(lastIndex - 1, lastIndex + 1)).map((e) => [e.index, e.term]), [[lastIndex - 1, 1], [lastIndex, 2], [lastIndex + 1, 2]]);
      await again.close();
    } finally {
      await remove();
    }
  });

  test('a corrupt record in an earlier segment fails the open, naming the file and the byte', async () => {
    const { path, remove } = await tempDb();
    try {
      const store = await WalRaftStore.open(path, { segmentBytes: 4096 });
      for (let index = 1; index <= 80; index++) await store.append(run(index, index, 1));
      await store.close();
      const segment = join(path, segmentName(1));
      const victim = (await records(segment))[3]!;
      await overwrite(segment, victim.offset + 20, Buffer.from('X'));
      await assert.rejects(WalRaftStore.open(path, { segmentBytes: 4096 }), {
        message: `raft.db/${segmentName(1)}: record at byte ${victim.offset} is corrupt (crc mismatch); the raft log cannot be read (see "Raft log corruption" in docs/runbooks.md)`,
      });
    } finally {
      await remove();
    }
  });

  // A bad checksum with intact records after it is not a write a crash cut short: those records were written (and
  // acknowledged) after it. Dropping it and them as a torn tail would lose acknowledged entries.
  const corruptions: Record<string, (found: Array<{ offset: number; length: number }>) => { offset: number; at: number }> = {
    'a flipped byte in an entry record': (found) => ({ offset: found[2]!.offset, at: found[2]!.offset + 20 }),
    "a flipped byte in the segment's checkpoint": () => ({ offset: 0, at: 12 }),
    'a damaged record length': (found) => ({ offset: found[2]!.offset, at: found[2]!.offset + 3 }),
  };
  for (const [corruption, where] of Object.entries(corruptions)) {
    test(`${corruption} of the last segment, with intact records after it, refuses to open, naming the segment and byte`, async () => {
      const { path, remove } = await tempDb();
      try {
        const store = await WalRaftStore.open(path, { segmentBytes: 1 << 16 });
        for (let index = 1; index <= 6; index++) await store.persist(run(index, index, 1), { term: 1, vote: 'ctrl-a', commit: index - 1 });
        await store.close();
        const segment = join(path, segmentName(1));
        const found = await records(segment);
        assert.equal(found.length, 7, 'a checkpoint and six appends');
        const { offset, at } = where(found);
        const bytes = await readFile(segment);
        await overwrite(segment, at, Buffer.from([bytes[at]! ^ 0x40]));
        const error = await WalRaftStore.open(path, { segmentBytes: 1 << 16 }).then(() => undefined, (caught: Error) => caught);
        assert.ok(error, 'the open is refused');
        const refusal = /^raft\.db\/wal-0000000001\.log: record at byte (\d+) is corrupt \((?:crc mismatch|truncated[^)]*)\), yet an intact record follows at byte \d+: this is not a torn write/.exec(error.message);
        assert.equal(refusal?.[1], String(offset), error.message);
        assert.match(error.message, /see "Raft log corruption" in docs\/runbooks\.md\)$/);
        // Nothing was discarded: put the byte back and every entry is there.
        await overwrite(segment, at, Buffer.from([bytes[at]!]));
        const reopened = await WalRaftStore.open(path, { segmentBytes: 1 << 16 });
        assert.deepEqual((await contents(reopened)).entries, span(1, 6, 1));
        await reopened.close();
      } finally {
        await remove();
      }
    });
  }

  test('compaction deletes segments that hold no live entries, and the log still reads back after a reopen', async () => {
    const { path, remove } = await tempDb();
    try {
      const store = await WalRaftStore.open(path, { segmentBytes: 4096 });
      for (let index = 1; index <= 200; index += 2) await store.persist(run(index, index + 1, 1), { term: 1, vote: 'ctrl-a', commit: index });
      const before = await segmentFiles(path);
      assert.ok(before.length >= 8, `${before.length} segments`);
      let holding151 = '';
      for (const name of before) {
        if ((await records(join(path, name))).some(({ record }) => record.e?.some((e) => e.index === 151))) holding151 = name;
      }
      await store.compact(150);
      // Every segment before the one holding the oldest live entry is gone; that one and the later ones stay.
      assert.deepEqual(await segmentFiles(path), before.filter((name) => name >= holding151));
      assert.ok(holding151 > segmentName(4));
      await store.close();

      const reopened = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.deepEqual(await contents(reopened), { first: 151, last: 200, hardState: { term: 1, vote: 'ctrl-a', commit: 199 }, entries: span(151, 200, 1) });
      // Compacting past the end empties the log at that position; everything but the current segment goes.
      await reopened.compact(500);
      assert.equal((await segmentFiles(path)).length, 2); // the current one and the spare
      await reopened.close();
      const again = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.deepEqual(await contents(again), { first: 501, last: 500, hardState: { term: 1, vote: 'ctrl-a', commit: 199 }, entries: [] });
      await again.close();
    } finally {
      await remove();
    }
  });

  test('reset starts a new segment and deletes the older ones; the hard state stays', async () => {
    await withStore({ segmentBytes: 4096 }, async (path, store) => {
      for (let index = 1; index <= 60; index++) await store.persist(run(index, index, 1), { term: 1, vote: 'ctrl-a', commit: index });
      const newest = (await segmentFiles(path)).at(-1)!;
      await store.reset();
      const remaining = await segmentFiles(path);
      assert.equal(remaining[0], newest, 'the spare became the reset segment');
      assert.equal(remaining.length, 2);
      assert.deepEqual((await records(join(path, newest))).map((r) => r.record), [{ k: { h: { term: 1, vote: 'ctrl-a', commit: 60 }, c: 0, r: true } }]);
      assert.deepEqual(await contents(store), { first: 1, last: 0, hardState: { term: 1, vote: 'ctrl-a', commit: 60 }, entries: [] });
    });
  });

  test('a reset interrupted before the old segments were deleted is finished on open', async () => {
    const { path, remove } = await tempDb();
    const saved = `${path}-saved`;
    try {
      const store = await WalRaftStore.open(path, { segmentBytes: 4096 });
      for (let index = 1; index <= 60; index++) await store.append(run(index, index, 1));
      const old = (await segmentFiles(path)).slice(0, -1);
      await fs.promises.mkdir(saved);
      for (const name of old) await copyFile(join(path, name), join(saved, name));
      await store.reset();
      await store.append(run(70, 71, 2));
      await store.close();
      for (const name of old) await copyFile(join(saved, name), join(path, name)); // as if the deletes never happened

      const reopened = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.deepEqual(await contents(reopened), { first: 70, last: 71, hardState: undefined, entries: span(70, 71, 2) });
      assert.ok(!(await segmentFiles(path)).includes(segmentName(1)));
      await reopened.close();
    } finally {
      await rm(saved, { recursive: true, force: true });
      await remove();
    }
  });

  test('an entry larger than a segment gets a segment of its own size and reads back', async () => {
    await withStore({ segmentBytes: 4096 }, async (path, store) => {
      const big = { index: 2, term: 1, type: 'normal' as const, data: { blob: 'ü'.repeat(20_000) } };
      await store.append([entry(1, 1)]);
      await store.append([big]);
      await store.append([entry(3, 1)]);
      await store.close();
      const reopened = await WalRaftStore.open(path, { segmentBytes: 4096 });
      assert.deepEqual(await reopened.entries(1, 3), [entry(1, 1), big, entry(3, 1)]);
      const sizes = await Promise.all((await segmentFiles(path)).map(async (name) => (await stat(join(path, name))).size));
      assert.ok(sizes.some((size) => size > 40_000), `segment sizes ${sizes.join(', ')}`);
      await reopened.close();
    });
  });

  test('after a failed write the store refuses further writes; a reopen shows what was acknowledged', async () => {
    await withStore({ segmentBytes: 1 << 16 }, async (path, store) => {
      await store.persist(run(1, 2, 1), { term: 1, vote: null, commit: 0 });
      mock.method(fs, 'write', (...args: unknown[]) => (args[args.length - 1] as (error: Error) => void)(new Error('EIO: i/o error, write')));
      syncBuiltinESMExports();
      try {
        await assert.rejects(store.append(run(3, 3, 1)), /EIO/);
      } finally {
        mock.restoreAll();
        syncBuiltinESMExports();
      }
      assert.equal(await store.lastIndex(), 2, 'bounds move only after a write succeeds');
      await assert.rejects(store.append(run(3, 3, 1)), /refuses writes after a failed write: EIO/);
      await store.close();
      const reopened = await WalRaftStore.open(path, { segmentBytes: 1 << 16 });
      assert.deepEqual(await contents(reopened), { first: 1, last: 2, hardState: { term: 1, vote: null, commit: 0 }, entries: span(1, 2, 1) });
      await reopened.close();
    });
  });

  test('spareReady resolves once the preallocated spare segment is on disk at full size', async () => {
    const { path, remove } = await tempDb();
    const store = await WalRaftStore.open(path, { segmentBytes: 64 * 1024 });
    try {
      await store.spareReady();
      const sizes = await Promise.all((await readdir(path)).map(async (name) => (await stat(join(path, name))).size));
      assert.ok(sizes.length >= 1 && sizes.every((size) => size === 64 * 1024), `segment sizes ${sizes.join(', ')}`);
    } finally {
      await store.close();
      await remove();
    }
  });

  test('an unusable segment size is refused', async () => {
    await assert.rejects(WalRaftStore.open(join(tmpdir(), 'never-created'), { segmentBytes: 100 }), /segmentBytes 100 must be an integer of at least 4096/);
  });
});
