// A request whose body stops before its end (the client leaves, or the connection is closed under it) is refused as
// a bad body, logged at info like other refusals: not an unhandled server error. Over plain HTTP in-process,
// through the same outer layer the APIs use, with a raw socket as the client.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import Koa from 'koa';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { errorHandler } from './error-handler.ts';
import type { RequestState } from './koa-state.ts';
import { readRawBody } from './request-body.ts';

const logger = createMemoryLogger();
let server: Server;
let port = 0;
/** How each body read ended: 'read <bytes>' or the refusal's code. */
const outcomes: string[] = [];
let readStarted!: () => void;

before(async () => {
  const app = new Koa<RequestState>();
  app.silent = true; // as web-app.ts: the socket's own parse error on the cut-off is not printed
  app.use(errorHandler({ logger, serverHeader: 'edgeward-test', requestTimeoutMs: 10_000 }));
  app.use(async (ctx) => {
    // /late waits until its client has gone before it reads: the body is then unreadable from the start.
    if (ctx.path === '/late') await new Promise<void>((resolve) => ctx.req.socket.once('close', () => resolve()));
    readStarted?.();
    try {
      const body = await readRawBody(ctx.req, 1024 * 1024);
      outcomes.push(`read ${body.length}`);
      ctx.body = { data: { bytes: body.length }, meta: {} };
    } catch (error) {
      outcomes.push((error as { code?: string }).code ?? String(error));
      throw error;
    }
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Sends the head and `sent` of `declared` body bytes, then closes the connection once the handler reads. */
async function leaveMidBody(path: string, declared: number, sent: number): Promise<void> {
  const reading = new Promise<void>((resolve) => (readStarted = resolve));
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${'x'.repeat(sent)}`);
  if (path === '/late') socket.destroy();
  await reading;
  socket.destroy();
}

const unhandled = () => logger.lines.filter((line) => line.msg === 'unhandled error serving request');
const refusals = () => logger.lines.filter((line) => line.msg === 'request refused');

test('a client that leaves mid-body is refused COULD_NOT_PARSE_BODY and logged as a refusal, not a server error', async () => {
  await leaveMidBody('/early', 1000, 10);
  await until('the read to end', () => outcomes.length === 1);
  assert.deepEqual(outcomes, ['COULD_NOT_PARSE_BODY']);
  await until('the refusal to be logged', () => refusals().length === 1);
  assert.equal(refusals()[0]!.level, 'info');
  assert.equal(refusals()[0]!.code, 'COULD_NOT_PARSE_BODY');
  assert.match(String(refusals()[0]!.cause), /cut off/);
  assert.deepEqual(unhandled(), []);
});

test('a body whose client left before the handler read it is refused at once, not left waiting for events', async () => {
  const started = Date.now();
  await leaveMidBody('/late', 1000, 10);
  await until('the read to end', () => outcomes.length === 2);
  assert.equal(outcomes[1], 'COULD_NOT_PARSE_BODY');
  assert.ok(Date.now() - started < 5_000);
  assert.deepEqual(unhandled(), []);
});

test('a whole body still reads: the close after the answer is not taken for a cut-off', async () => {
  const response = await fetch(`http://127.0.0.1:${port}/whole`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { data: { bytes: 7 }, meta: {} });
  assert.equal(outcomes.at(-1), 'read 7');
  assert.deepEqual(unhandled(), []);
});
