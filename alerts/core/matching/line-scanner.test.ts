import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineScanner } from './line-scanner.ts';
import type { ScanResult } from './line-scanner.ts';

const scanner = (maxLineBytes = 1024) => new LineScanner({ needles: ['peer disconnected', 'read-only mode'], lastNeedles: ['"namespace":"entityChange"'], maxLineBytes });
const texts = (result: ScanResult) => result.matches.map((match) => `${match.needles.join('+')}:${match.text}`);

/** Feeds `text` in chunks of `size` bytes and gathers everything the scanner reports. */
function feed(target: LineScanner, text: string, size: number) {
  const bytes = Buffer.from(text);
  const all = { lines: 0, oversized: 0, matches: [] as string[], last: [] as string[][] };
  for (let at = 0; at < bytes.length; at += size) {
    const result = target.scan(bytes.subarray(at, at + size));
    all.lines += result.lines;
    all.oversized += result.oversized;
    all.matches.push(...texts(result));
    all.last.push([...result.last[0]!.newest]);
  }
  return all;
}

describe('LineScanner', () => {
  it('reports each line holding a needle once, with every needle it holds, in file order', () => {
    const result = scanner().scan(
      Buffer.from('a\n{"msg":"peer disconnected","x":"peer disconnected"}\nb\n{"msg":"entering read-only mode","n":"peer disconnected"}\n'),
    );
    assert.equal(result.lines, 4);
    assert.deepEqual(texts(result), ['0:{"msg":"peer disconnected","x":"peer disconnected"}', '0+1:{"msg":"entering read-only mode","n":"peer disconnected"}']);
  });

  it('finds a needle cut by a chunk boundary, whatever the chunk size', () => {
    const text = `${'x'.repeat(50)}\n{"msg":"peer disconnected","peerId":"ctrl2"}\n${'y'.repeat(30)}\n{"msg":"exiting read-only mode"}\n`;
    for (const size of [1, 2, 3, 7, 16, 33, 64, 1000]) {
      const all = feed(scanner(), text, size);
      assert.deepEqual(all.matches, ['0:{"msg":"peer disconnected","peerId":"ctrl2"}', '1:{"msg":"exiting read-only mode"}'], `chunks of ${size}`);
      assert.equal(all.lines, 4, `chunks of ${size}`);
    }
  });

  it('keeps an unfinished last line until its newline arrives, and says how many bytes are pending', () => {
    const target = scanner();
    const first = target.scan(Buffer.from('{"msg":"peer disc'));
    assert.deepEqual(first.matches, []);
    assert.equal(first.lines, 0);
    assert.equal(target.pendingBytes, 17);
    const second = target.scan(Buffer.from('onnected"}\n{"msg":"x"'));
    assert.deepEqual(texts(second), ['0:{"msg":"peer disconnected"}']);
    assert.equal(target.pendingBytes, 10);
  });

  it('does not report a needle in an unfinished line', () => {
    const target = scanner();
    assert.deepEqual(target.scan(Buffer.from('{"msg":"peer disconnected"')).matches, []);
  });

  it('drops a line longer than maxLineBytes without buffering it, and goes on after its newline', () => {
    const target = scanner(100);
    const huge = `{"msg":"peer disconnected","pad":"${'z'.repeat(5000)}"}`;
    const all = feed(target, `${huge}\n{"msg":"peer disconnected"}\n`, 64);
    assert.deepEqual(all.matches, ['0:{"msg":"peer disconnected"}']);
    assert.equal(all.oversized, 1);
    assert.equal(all.lines, 2);
  });

  it('counts a long line inside one chunk as oversized and does not report it', () => {
    const target = scanner(100);
    const result = target.scan(Buffer.from(`{"msg":"peer disconnected","pad":"${'z'.repeat(500)}"}\nshort\n`));
    assert.deepEqual(result.matches, []);
    assert.equal(result.oversized, 1);
    assert.equal(result.lines, 2);
  });

  it('while skipping a long line, pendingBytes covers it all, so a restart resumes at its start', () => {
    const target = scanner(100);
    target.scan(Buffer.from('ok\n'));
    target.scan(Buffer.from('q'.repeat(150)));
    target.scan(Buffer.from('q'.repeat(150)));
    assert.equal(target.pendingBytes, 300);
    target.scan(Buffer.from('q\nnext'));
    assert.equal(target.pendingBytes, 4);
  });

  it('gives the newest lines of a "last" needle, newest first', () => {
    const lines = [1, 2, 3, 4, 5, 6].map((index) => `{"namespace":"entityChange","raftIndex":${index}}`);
    const result = scanner().scan(Buffer.from(`${lines.join('\n')}\nother\n`));
    assert.deepEqual(result.last[0], { count: 6, newest: [lines[5], lines[4], lines[3], lines[2]] });
    assert.deepEqual(result.matches, []);
  });

  it('forgets the unfinished line on reset (a truncated or replaced file)', () => {
    const target = scanner();
    target.scan(Buffer.from('{"msg":"peer'));
    target.reset();
    assert.equal(target.pendingBytes, 0);
    assert.deepEqual(target.scan(Buffer.from(' disconnected"}\n')).matches, []);
  });

  it('decodes matched lines as UTF-8, even when a character is cut by the chunk boundary', () => {
    const text = '{"msg":"peer disconnected","who":"Zoë ✓"}\n';
    const all = feed(scanner(), text, 5);
    assert.deepEqual(all.matches, [`0:${text.trimEnd()}`]);
  });
});
