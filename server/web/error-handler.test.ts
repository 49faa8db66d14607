// The outer layer as a client sees it, over plain HTTP in-process: envelopes for errors, 404 for unknown routes,
// a logged 500 without internals, and 503 TIMEOUT for a request that runs past its deadline.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import Koa from 'koa';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { EdgeError } from '../edge/edge-error.ts';
import { errorHandler } from './error-handler.ts';
import type { RequestState } from './koa-state.ts';

const logger = createMemoryLogger();
let server: Server;
let port = 0;

before(async () => {
  const app = new Koa<RequestState>();
  app.use(errorHandler({ logger, serverHeader: 'edgeward-test', requestTimeoutMs: 300 }));
  app.use(async (ctx) => {
    if (ctx.path === '/slow') await new Promise((resolve) => setTimeout(resolve, 2500));
    else if (ctx.path === '/refused') throw EdgeError.validation('name', 'name is required');
    else if (ctx.path === '/broken') throw new Error('secret internal detail');
    else if (ctx.path === '/throttled') throw new EdgeError('RATE_LIMITED', { code: 'AUTHENTICATION_THROTTLED', message: 'retry after 7 s' }).withRetryAfter(7);
    else if (ctx.path === '/challenged') throw new EdgeError('UNAUTHORIZED').withChallenge('Bearer realm="openziti"');
    else if (ctx.path === '/read-only') throw new EdgeError('CLUSTER_READ_ONLY', undefined, new Error('versions differ'));
    else if (ctx.path === '/ok') ctx.body = { data: {}, meta: {} };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string): Promise<{ status: number; body: any; ms: number; headers: IncomingHttpHeaders }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), ms: performance.now() - started, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

test('a request past its deadline is answered 503 TIMEOUT within about a second', async () => {
  const response = await get('/slow');
  assert.equal(response.status, 503);
  assert.equal(response.body.error.code, 'TIMEOUT');
  assert.ok(response.ms < 1800, `answered after ${response.ms.toFixed(0)} ms`);
  assert.equal((await get('/ok')).status, 200, 'the server keeps serving');
});

test('refusals keep their code and cause; unknown errors are a 500 with no internals, logged', async () => {
  const refused = await get('/refused');
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body.error.cause, { field: 'name', reason: 'name is required' });
  const broken = await get('/broken');
  assert.equal(broken.status, 500);
  assert.equal(broken.body.error.code, 'UNHANDLED');
  assert.ok(!JSON.stringify(broken.body).includes('secret internal detail'));
  assert.ok(logger.lines.some((line) => line.msg === 'unhandled error serving request' && line.requestId === broken.body.error.requestId));
  const missing = await get('/nothing-here');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'NOT_FOUND');
});

test('a domain error is shown with its code\'s status and message, and the headers it asks for', async () => {
  const throttled = await get('/throttled');
  assert.equal(throttled.status, 429);
  assert.equal(throttled.headers['retry-after'], '7');
  assert.equal(throttled.body.error.message, 'The resource is rate limited and the rate limit has been exceeded. Please try again later');
  const challenged = await get('/challenged');
  assert.equal(challenged.status, 401);
  assert.equal(challenged.headers['www-authenticate'], 'Bearer realm="openziti"');
  const readOnly = await get('/read-only');
  assert.equal(readOnly.status, 503);
  assert.equal(readOnly.body.error.message, 'unable to execute command. In a readonly state: different versions detected in cluster');
  assert.ok(!JSON.stringify(readOnly.body).includes('versions differ'), 'the internal cause is logged, never sent');
});
