import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonTextShapeProblem } from '../json/json-shape.ts';
import { encodeJsonFrame, FrameDecoder } from './frame-codec.ts';
import { helloFrameLimits, peerFrameLimits, routerFrameLimits } from './frame-limits.ts';

/** A request body at the web edge's limits: 64 deep, 10,000 keys and items in all. */
function largestBody(): string {
  const wide = JSON.stringify({ items: Array.from({ length: 10_000 - 62 - 1 }, () => 0) });
  return `${'{"a":'.repeat(62)}${wide}${'}'.repeat(62)}`;
}

test('the largest legitimate raft append (512 commands from the largest bodies) passes the peer frame limits', () => {
  const body = largestBody();
  assert.equal(jsonTextShapeProblem(body, { maxDepth: 64, maxMembers: 10_000 }), undefined, 'a body the web edge takes');
  assert.ok(jsonTextShapeProblem(body, { maxDepth: 63, maxMembers: 10_000 }) && jsonTextShapeProblem(body, { maxDepth: 64, maxMembers: 9_990 }), 'and at its limits');
  const entry = (index: number) => `{"index":${index},"term":3,"type":"normal","data":{"type":"identity.create","identity":${body},"authenticators":[{"id":"a","method":"updb"}]}}`;
  const entries = Array.from({ length: 512 }, (_, i) => entry(i + 1));
  const text = `{"type":"raft","message":{"type":"Append","from":"c1","to":"c2","term":3,"prevIndex":0,"prevTerm":0,"commit":0,"entryLengths":[${entries.map((e) => e.length).join(',')}],"entries":[${entries.join(',')}]}}`;
  const [frame] = new FrameDecoder(undefined, peerFrameLimits).push(encodeJsonFrame(text)) as Array<{ message: { entries: unknown[] } }>;
  assert.equal(frame!.message.entries.length, 512);
});

test('a hostile peer frame is refused: one level past 128, or past 8 Mi keys and items', () => {
  const decode = (text: string) => new FrameDecoder(undefined, peerFrameLimits).push(encodeJsonFrame(text));
  assert.doesNotThrow(() => decode(`${'['.repeat(128)}${']'.repeat(128)}`));
  assert.throws(() => decode(`${'['.repeat(129)}${']'.repeat(129)}`), /nests deeper than 128/);
  assert.throws(() => decode(`[${'0,'.repeat(8 * 1024 * 1024)}0]`), /more than 8388608 keys and items/);
});

test('router and hello frames have their own, smaller limits', () => {
  assert.throws(() => new FrameDecoder(undefined, routerFrameLimits).push(encodeJsonFrame(`[${'0,'.repeat(1024 * 1024)}0]`)), /more than 1048576 keys and items/);
  const hello = helloFrameLimits(8192);
  const routerHello = JSON.stringify({ type: 'router.hello', routerId: 'r1', version: 'v1', hostname: 'h', supportedProtocols: { tls: 'tls://h:3022' }, linkListeners: [{ binding: 'transport', advertise: 'tls:h:4022', groups: ['default', 'east'] }] });
  assert.equal(new FrameDecoder(undefined, hello).push(encodeJsonFrame(routerHello)).length, 1);
  assert.throws(() => new FrameDecoder(undefined, hello).push(encodeJsonFrame(`${'['.repeat(17)}${']'.repeat(17)}`)), /deeper than 16/);
});
