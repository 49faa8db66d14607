import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { FileFollower } from './file-follower.ts';
import type { ChunkConsumer, SavedPosition } from './file-follower.ts';
import { FileTailer } from './file-tailer.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-follower-'));
const followers: FileFollower[] = [];
after(async () => {
  await Promise.all(followers.map((target) => target.stop()));
  rmSync(root, { recursive: true, force: true });
});
const freshDir = () => mkdtempSync(join(root, 'case-'));

/** Collects complete lines, as the real consumers see them. */
class Lines implements ChunkConsumer {
  readonly lines: string[] = [];
  private tail = '';
  get pendingBytes(): number {
    return Buffer.byteLength(this.tail);
  }
  reset(): void {
    this.tail = '';
  }
  consume(chunk: Buffer): void {
    const parts = (this.tail + chunk.toString('utf8')).split('\n');
    this.tail = parts.pop()!;
    this.lines.push(...parts);
  }
}

function follower(path: string, options: { saved?: SavedPosition; initialPosition?: 'end' | 'start'; chunkBytes?: number } = {}) {
  const lines = new Lines();
  const logger = createMemoryLogger();
  const target = new FileFollower(path, lines, { initialPosition: options.initialPosition ?? 'end', chunkBytes: options.chunkBytes ?? 7, logger }, options.saved);
  followers.push(target);
  return { target, lines, logger };
}

/** A rotated copy's name as the controller makes it, with a distinct mtime so copies sort in the order made. */
function rotate(path: string, stamp: number): string {
  const copy = path.replace(/\.jsonl$/, `-2026-11-24T04-05-0${stamp}.000.jsonl`);
  renameSync(path, copy);
  const when = new Date(Date.UTC(2026, 10, 24, 4, 5, stamp));
  utimesSync(copy, when, when);
  return copy;
}

describe('FileFollower', () => {
  it('starts a file that exists at the end of its last complete line, and reads an unfinished line whole', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, 'old 1\nold 2\npart');
    const { target, lines } = follower(path);
    await target.poke();
    appendFileSync(path, 'ial\nnew\n');
    await target.poke();
    assert.deepEqual(lines.lines, ['partial', 'new']);
  });

  it('reads an existing file from its start with initialPosition start', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, 'a\nb\n');
    const { target, lines } = follower(path, { initialPosition: 'start' });
    await target.poke();
    assert.deepEqual(lines.lines, ['a', 'b']);
  });

  it('reads a file that appears later from its start', async () => {
    const path = join(freshDir(), 'events.jsonl');
    const { target, lines } = follower(path);
    await target.poke();
    assert.deepEqual(lines.lines, []);
    writeFileSync(path, 'first\nsecond\n');
    await target.poke();
    assert.deepEqual(lines.lines, ['first', 'second']);
  });

  it('follows a rotation: the old file to its end first, then the new one from its start', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const { target, lines } = follower(path);
    await target.poke();
    appendFileSync(path, 'a\nb\n');
    await target.poke();
    appendFileSync(path, 'c\n'); // written just before the rename, not yet read
    rotate(path, 1);
    writeFileSync(path, 'd\n');
    await target.poke();
    appendFileSync(path, 'e\n');
    await target.poke();
    assert.deepEqual(lines.lines, ['a', 'b', 'c', 'd', 'e']);
  });

  it('reads every copy rotated between two looks, in the order they were written', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const { target, lines } = follower(path);
    await target.poke();
    appendFileSync(path, 'a\n');
    rotate(path, 1);
    writeFileSync(path, 'b\n');
    rotate(path, 2);
    writeFileSync(path, 'c\n');
    await target.poke();
    assert.deepEqual(lines.lines, ['a', 'b', 'c']);
  });

  it('reads a truncated file again from its start', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const { target, lines, logger } = follower(path);
    await target.poke();
    appendFileSync(path, 'long line one\nlong line two\n');
    await target.poke();
    truncateSync(path, 0);
    appendFileSync(path, 'x\n');
    await target.poke();
    assert.deepEqual(lines.lines, ['long line one', 'long line two', 'x']);
    assert.ok(logger.lines.some((line) => String(line.msg).includes('truncated')));
  });

  it('keeps reading a file removed by hand until a new one takes its name', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const { target, lines } = follower(path);
    await target.poke();
    appendFileSync(path, 'a\n');
    unlinkSync(path);
    await target.poke();
    writeFileSync(path, 'b\n');
    await target.poke();
    assert.deepEqual(lines.lines, ['a', 'b']);
  });
});

describe('FileFollower across a restart', () => {
  it('resumes at the saved offset: nothing read twice, nothing written meanwhile missed', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const first = follower(path);
    await first.target.poke();
    appendFileSync(path, 'a\nb\nunfinish');
    await first.target.poke();
    const saved = first.target.position()!;
    await first.target.stop();
    appendFileSync(path, 'ed\nc\n');
    const second = follower(path, { saved });
    await second.target.poke();
    assert.deepEqual(first.lines.lines, ['a', 'b']);
    assert.deepEqual(second.lines.lines, ['unfinished', 'c']);
  });

  it('finishes the file it was reading when it was rotated meanwhile, then the copies after it, then the new file', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const first = follower(path);
    await first.target.poke();
    appendFileSync(path, 'a\n');
    await first.target.poke();
    const saved = first.target.position()!;
    await first.target.stop();
    appendFileSync(path, 'b\n');
    rotate(path, 1);
    writeFileSync(path, 'c\n');
    rotate(path, 2);
    writeFileSync(path, 'd\n');
    const second = follower(path, { saved });
    await second.target.poke();
    assert.deepEqual(second.lines.lines, ['b', 'c', 'd']);
  });

  it('reads the current file from its start when the saved one is gone, and says so', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, 'a\n');
    const first = follower(path, { initialPosition: 'start' });
    await first.target.poke();
    const saved = first.target.position()!;
    await first.target.stop();
    // Moved out of sight (not deleted, so that the new file cannot be given the same inode).
    renameSync(path, join(root, `gone-${saved.ino}.jsonl`));
    writeFileSync(path, 'new\n');
    const second = follower(path, { saved });
    await second.target.poke();
    assert.deepEqual(second.lines.lines, ['new']);
    assert.ok(second.logger.lines.some((line) => String(line.msg).includes('is gone')));
  });

  it('reads from the start a file truncated and written past the saved offset while stopped', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, 'aaaa\nbbbb\n');
    const first = follower(path, { initialPosition: 'start' });
    await first.target.poke();
    const saved = first.target.position()!;
    assert.equal(saved.offset, 10);
    await first.target.stop();
    writeFileSync(path, 'xx\nyyyyyyyyyy\nz\n');
    const second = follower(path, { saved });
    await second.target.poke();
    assert.deepEqual(second.lines.lines, ['xx', 'yyyyyyyyyy', 'z']);
  });

  it('a position never points inside a line', async () => {
    const path = join(freshDir(), 'events.jsonl');
    writeFileSync(path, '');
    const { target } = follower(path, { chunkBytes: 3 });
    await target.poke();
    appendFileSync(path, 'abcdef\nghi');
    await target.poke();
    assert.equal(target.position()?.offset, 7);
  });
});

/** A tailer of `path` from its end, started (the re-check far off, so only the watcher's events move it). */
async function startedTailer(path: string): Promise<{ tailer: FileTailer; lines: Lines }> {
  const lines = new Lines();
  const tailer = new FileTailer([{ path, consumer: lines }], {}, { initialPosition: 'end', recheckInterval: 60_000, chunkBytes: 4096, logger: createMemoryLogger() });
  await tailer.start();
  return { tailer, lines };
}

describe('FileTailer', () => {
  it('takes a line written as soon as start() resolves as news, not as history', async () => {
    const dir = freshDir();
    const path = join(dir, 'daemon.log');
    writeFileSync(path, 'history\n');
    const { tailer, lines } = await startedTailer(path);
    try {
      appendFileSync(path, 'news\n');
      await tailer.pokeAll();
      assert.deepEqual(lines.lines, ['news']);
    } finally {
      await tailer.stop();
    }
  });

  it('reads appended lines on the watcher\'s events, across a rotation, without waiting for the re-check', async () => {
    const dir = freshDir();
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, '');
    const { tailer, lines } = await startedTailer(path);
    try {
      appendFileSync(path, 'one\n');
      await waitFor(() => lines.lines.length === 1);
      appendFileSync(path, 'two\n');
      rotate(path, 1);
      writeFileSync(path, 'three\n');
      await waitFor(() => lines.lines.length === 3);
      assert.deepEqual(lines.lines, ['one', 'two', 'three']);
      assert.equal(tailer.positions()[path]?.offset, 6);
    } finally {
      await tailer.stop();
    }
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${check.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
