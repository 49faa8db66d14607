// A link's frames are held to the link limits: a peer that sends a frame nested too deep, or one of too many
// members, has its connection closed with the reason, and the frames before it still arrive.
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, test } from 'node:test';
import { encodeJsonFrame } from '../../common/framing/frame-codec.ts';
import { linkFrameLimits } from '../../common/framing/frame-limits.ts';
import { FramedSocket } from './framed-socket.ts';

let server: Server;
let port = 0;
const accepted: Socket[] = [];

before(async () => {
  server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as { port: number }).port;
});
after(async () => {
  for (const socket of accepted) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A FramedSocket on one end of a loopback connection (the frames do not care that it is not TLS), and the other end. */
async function pair(): Promise<{ framed: FramedSocket; peer: Socket }> {
  const count = accepted.length;
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  while (accepted.length === count) await new Promise((resolve) => setTimeout(resolve, 5));
  return { framed: new FramedSocket(socket as unknown as TLSSocket), peer: accepted[accepted.length - 1]! };
}

function closeReason(framed: FramedSocket): Promise<string> {
  return new Promise((resolve) => framed.onClose(resolve));
}

test('a frame nested deeper than the link limit closes the link with the reason, after the frames before it', async () => {
  const { framed, peer } = await pair();
  const frames: unknown[] = [];
  framed.onFrame((frame) => frames.push(frame));
  const closed = closeReason(framed);
  const depth = linkFrameLimits.maxDepth! + 1;
  peer.write(Buffer.concat([encodeJsonFrame('{"type":"hb"}'), encodeJsonFrame(`{"type":"x","a":${'['.repeat(depth)}${']'.repeat(depth)}}`)]));
  assert.match(await closed, /nests deeper than 32 levels/);
  assert.deepEqual(frames, [{ type: 'hb' }]);
});

test('a frame of more keys and items than the link limit closes the link', async () => {
  const { framed, peer } = await pair();
  const closed = closeReason(framed);
  peer.write(encodeJsonFrame(`[${Array.from({ length: linkFrameLimits.maxMembers! + 1 }, () => '0').join(',')}]`));
  assert.match(await closed, /more than 1048576 keys and items/);
});
