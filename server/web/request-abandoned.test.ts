// A password hash waiting in the queue is dropped when its request is abandoned: the deadline answers 503 TIMEOUT,
// or the client goes away. Over plain HTTP in-process, through the same outer layer the APIs use.
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import Koa from 'koa';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { HashQueue } from '../edge/login/hash-queue.ts';
import { hashPassword, verifyPassword } from '../auth/password-hasher.ts';
import { errorHandler } from './error-handler.ts';
import type { RequestState } from './koa-state.ts';
import { abandonedSignal } from './request-abandoned.ts';

let server: Server;
let port = 0;
// One slot, held by a job the test releases: every login the test sends waits in the queue behind it.
const queue = new HashQueue({ concurrency: 1, maxQueued: 10 });
/** Hashes actually computed for requests. */
let computed = 0;
let releaseSlot!: () => void;
let slotHeld!: Promise<unknown>;
const stored = await hashPassword('the-password');

before(async () => {
  const app = new Koa<RequestState>();
  app.use(errorHandler({ logger: createMemoryLogger(), serverHeader: 'edgeward-test', requestTimeoutMs: 300 }));
  app.use(async (ctx) => {
    const matched = await queue.run(() => {
      computed++;
      return verifyPassword('the-password', stored);
    }, abandonedSignal(ctx));
    ctx.body = { data: { matched }, meta: {} };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function holdTheSlot(): void {
  slotHeld = queue.run(() => new Promise<void>((resolve) => (releaseSlot = resolve)));
}

function post(): { answer: Promise<{ status: number; body: any }>; abort: () => void } {
  const req = request({ host: '127.0.0.1', port, path: '/authenticate', method: 'POST' });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.end();
  return { answer, abort: () => req.destroy() };
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a request answered 503 TIMEOUT by its deadline drops its queued hash: the hash is never computed', async () => {
  holdTheSlot();
  const { answer } = post();
  await until('the login to queue', () => queue.stats().queued === 1);
  const response = await answer;
  assert.equal(response.status, 503);
  assert.equal(response.body.error.code, 'TIMEOUT');
  assert.deepEqual(queue.stats(), { running: 1, queued: 0, refused: 0, abandoned: 1 }, 'gone from the queue while the slot is still held');
  releaseSlot();
  await slotHeld;
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(computed, 0, 'the abandoned hash never ran, not even once the slot was freed');
});

test('a client that goes away drops its queued hash; a request that waits its turn in time is served', async () => {
  holdTheSlot();
  const gone = post();
  gone.answer.catch(() => undefined);
  await until('the first login to queue', () => queue.stats().queued === 1);
  gone.abort();
  await until('the abandoned login to leave the queue', () => queue.stats().abandoned === 2);
  const served = post();
  await until('the second login to queue', () => queue.stats().queued === 1);
  releaseSlot();
  await slotHeld;
  const response = await served.answer;
  assert.equal(response.status, 200);
  assert.equal(response.body.data.matched, true);
  assert.equal(computed, 1, 'only the served request was hashed');
  assert.equal(queue.stats().abandoned, 2);
});
