import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeJsonInPieces } from './chunked-json.ts';

async function encode(value: unknown, pieceChars = 64): Promise<{ text: string | undefined; pieces: number; yields: number }> {
  const pieces: string[] = [];
  let yields = 0;
  const encoded = await encodeJsonInPieces(value, (piece) => pieces.push(piece), {
    pieceChars,
    yieldNow: async () => {
      yields++;
    },
  });
  return { text: encoded ? pieces.join('') : undefined, pieces: pieces.length, yields };
}

const rows = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `r${i}`, name: `row "${i}"\n`, tags: { a: [1, 2] }, gone: undefined, when: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), nothing: null }));

test('the text is exactly JSON.stringify, for a snapshot-like value and for odd values', async () => {
  const values: unknown[] = [
    { appliedIndex: 7, tables: { identities: rows(1000), empty: [], small: rows(3) }, fn: () => 1, sym: Symbol('x'), u: undefined },
    rows(600).map((row, i) => (i % 7 === 0 ? undefined : i % 11 === 0 ? () => 0 : row)),
    { only: undefined },
    {},
    [],
    'text "quoted"',
    42,
    null,
    true,
    new Date(0),
    Object.assign(Object.create(null) as object, { big: rows(300) }),
    { nested: { deeper: { list: Array.from({ length: 400 }, (_, i) => [i, `${i}`]) } } },
  ];
  for (const value of values) assert.equal((await encode(value)).text, JSON.stringify(value));
});

test('a value with no JSON form reports it and writes nothing', async () => {
  for (const value of [undefined, () => 1, Symbol('s')]) assert.equal((await encode(value)).text, undefined);
});

test('a large value is written in many pieces with a yield after each full piece; a small one in one piece', async () => {
  const large = await encode({ tables: { identities: rows(8000) } }, 4096);
  assert.ok(large.pieces > 20, `${large.pieces} pieces`);
  assert.equal(large.yields, large.pieces - 1);
  const small = await encode({ tables: { identities: rows(10) } }, 1 << 20);
  assert.equal(small.pieces, 1);
  assert.equal(small.yields, 0);
});

test('by default it lets timers and I/O run while a large value is encoded', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    let chars = 0;
    await encodeJsonInPieces({ tables: { identities: rows(40_000) } }, (piece) => (chars += piece.length), { pieceChars: 64 * 1024 });
    assert.ok(chars > 1_000_000);
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 3, `${ticks} timer runs during the encoding`);
});
