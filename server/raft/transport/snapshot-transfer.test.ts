// Snapshots in parts: every frame within the limit, the message rebuilt exactly, and transfers that do not add up
// refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sendSnapshotInParts, SnapshotAssembly, type SnapshotMessage } from './snapshot-transfer.ts';

const limit = 64 * 1024;

function snapshotMessage(data: unknown): SnapshotMessage {
  return { type: 'Snapshot', from: 'a', to: 'b', term: 3, snapshot: { meta: { index: 900, term: 2, configuration: { voters: ['a', 'b'], learners: [] } }, data } } as unknown as SnapshotMessage;
}

const identities = Array.from({ length: 3000 }, (_, i) => ({ id: `id-${i}`, name: `name ${i} ✓ ${'é'.repeat(i % 7)}`, roleAttributes: ['a', 'b'], createdAt: '2026-11-24T00:00:00.000Z' }));

/** Sends through a sink that records each frame's JSON; `stopAfter` parts makes the sink refuse more. */
async function transfer(message: SnapshotMessage, options: { stopAfter?: number; maxFrameBytes?: number } = {}) {
  const frames: string[] = [];
  let parts = 0;
  const sent = await sendSnapshotInParts(message, 't1', {
    send: (json) => frames.push(json),
    ready: async () => ++parts < (options.stopAfter ?? Infinity),
  }, options.maxFrameBytes ?? limit);
  return { sent, frames };
}

function receive(frames: readonly string[]): SnapshotMessage {
  const [first, ...rest] = frames.map((json) => JSON.parse(json) as { type: string; tid: string; message?: unknown; path?: unknown; items?: unknown; parts?: unknown });
  assert.equal(first!.type, 'snapBegin');
  const assembly = SnapshotAssembly.begin(first!);
  const last = rest.pop()!;
  for (const part of rest) {
    assert.equal(part.type, 'snapPart');
    assembly.add(part.path, part.items);
  }
  assert.equal(last.type, 'snapEnd');
  return assembly.finish(last.parts);
}

describe('snapshot transfer in parts', () => {
  test('a model larger than the frame limit leaves in frames within it and is rebuilt exactly', async () => {
    const data = { appliedIndex: 900, tables: { identities, routers: [{ id: 'r1' }], services: [] }, nested: { deep: { numbers: Array.from({ length: 100 }, (_, i) => i) } } };
    const message = snapshotMessage(data);
    assert.ok(JSON.stringify(message).length > 4 * limit, 'the snapshot is several frame limits long');
    const { sent, frames } = await transfer(message);
    assert.equal(sent, frames.length - 2);
    assert.ok(frames.length > 6, `${frames.length} frames`);
    for (const frame of frames) assert.ok(Buffer.byteLength(frame) <= limit, `a frame of ${Buffer.byteLength(frame)} bytes`);
    const head = JSON.parse(frames[0]!) as { message: SnapshotMessage };
    assert.deepEqual((head.message.snapshot.data as typeof data).tables.identities, [], 'large arrays are not in the first frame');
    assert.deepEqual((head.message.snapshot.data as typeof data).tables.routers, [{ id: 'r1' }], 'short arrays are');
    assert.deepEqual(receive(frames), JSON.parse(JSON.stringify(message)));
  });

  test('data that is itself a large array, and a key named __proto__, come through', async () => {
    const message = snapshotMessage(Array.from({ length: 500 }, (_, i) => ({ i })));
    assert.deepEqual(receive((await transfer(message)).frames), JSON.parse(JSON.stringify(message)));
    const odd = snapshotMessage(JSON.parse('{"__proto__": {"rows": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]}}'));
    const rebuilt = receive((await transfer(odd)).frames);
    assert.deepEqual(Object.keys(rebuilt.snapshot.data as object), ['__proto__']);
    assert.equal(((rebuilt.snapshot.data as Record<string, { rows: number[] }>)['__proto__']!).rows.length, 18);
  });

  test('a sink that stops the transfer ends it without its last frame', async () => {
    const { sent, frames } = await transfer(snapshotMessage({ tables: { identities } }), { stopAfter: 2 });
    assert.equal(sent, undefined);
    assert.equal(frames.length, 3, 'the first frame and two parts');
    assert.ok(!frames.some((frame) => frame.includes('"snapEnd"')));
  });

  test('an item larger than the frame limit fails the transfer with its size', async () => {
    const message = snapshotMessage({ tables: { identities: [...identities.slice(0, 20), { id: 'big', blob: 'x'.repeat(limit) }] } });
    await assert.rejects(transfer(message), /a snapshot item at tables\.identities is \d+ bytes as JSON, past the 65536-byte frame limit/);
  });

  test('transfers that do not add up are refused', () => {
    const begin = () => SnapshotAssembly.begin({ tid: 't', message: snapshotMessage({ tables: { identities: [] }, count: 1 }) });
    assert.throws(() => SnapshotAssembly.begin({ tid: 't', message: { type: 'Append' } }), /does not start with a snapshot message/);
    assert.throws(() => SnapshotAssembly.begin({ message: snapshotMessage({}) }), /without an id/);
    assert.throws(() => begin().add(['tables', 'missing'], [1]), /not an array in the snapshot/);
    assert.throws(() => begin().add(['count'], [1]), /not an array in the snapshot/);
    assert.throws(() => begin().add(['tables', '__proto__'], [1]), /not an array in the snapshot/);
    assert.throws(() => begin().add(['constructor', 'prototype'], [1]), /not an array in the snapshot/);
    assert.throws(() => begin().add('tables', [1]), /without a path of keys/);
    assert.throws(() => begin().add(['tables', 'identities'], { 0: 1 }), /without items/);
    const short = begin();
    short.add(['tables', 'identities'], [{ id: 'x' }]);
    assert.throws(() => short.finish(2), /ended after 1 parts, but 2 were sent/);
    assert.deepEqual((short.finish(1).snapshot.data as { tables: { identities: unknown[] } }).tables.identities, [{ id: 'x' }]);
  });
});
