// Routing as a client sees it, over HTTP in-process: routers under prefixes and at the root behind the outer layer,
// methods, trailing slashes, params, 405 with Allow, 404 for the rest, and the route each request is counted under.
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import Koa from 'koa';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { apiRouter, routesOf } from './api-router.ts';
import { errorHandler } from './error-handler.ts';
import type { MatchedRoute, RequestState } from './koa-state.ts';

const observed: Array<{ path: string; route: MatchedRoute | undefined; status: number }> = [];
const seen: string[] = [];
let server: Server;
let port = 0;
let app: Koa<RequestState>;

before(async () => {
  app = new Koa<RequestState>();
  app.use(errorHandler({ logger: createMemoryLogger(), serverHeader: 'edgeward-test', requestTimeoutMs: 5000, observe: (path, _method, route, status) => observed.push({ path, route, status }) }));
  const api = apiRouter('/api')
    .get('/things', (ctx) => void (ctx.body = { list: true }))
    .post('/things', (ctx) => void (ctx.body = { created: true }))
    .get('/things/:id', (ctx) => void (ctx.body = { one: ctx.params.id }))
    .delete('/things/:id', (ctx) => void (ctx.body = { gone: ctx.params.id }))
    .get('/things/special', (ctx) => void (ctx.body = { special: true }))
    .get(
      '/guarded',
      async (_ctx, next) => {
        seen.push('guard');
        await next();
        seen.push('after');
      },
      (ctx) => {
        seen.push('handler');
        ctx.body = { guarded: true };
      },
    )
    .get('/', (ctx) => void (ctx.body = { root: 'api' }));
  const root = apiRouter().get('/', (ctx) => void (ctx.body = { root: 'host' })).get('/version', (ctx) => void (ctx.body = { version: 1 }));
  for (const router of [api, root]) app.use(router.middleware());
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function call(method: string, path: string): Promise<{ status: number; body: any; allow: string | undefined }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, method }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, allow: res.headers.allow }));
    })
      .on('error', reject)
      .end();
  });
}

test('paths dispatch by method under a prefix and at the root; params are decoded; a trailing slash is the same path', async () => {
  assert.deepEqual((await call('GET', '/api/things')).body, { list: true });
  assert.deepEqual((await call('GET', '/api/things/')).body, { list: true });
  assert.deepEqual((await call('POST', '/api/things')).body, { created: true });
  assert.deepEqual((await call('GET', '/api/things/a%20b')).body, { one: 'a b' });
  assert.deepEqual((await call('DELETE', '/api/things/x1')).body, { gone: 'x1' });
  assert.deepEqual((await call('GET', '/api')).body, { root: 'api' });
  assert.deepEqual((await call('GET', '/')).body, { root: 'host' });
  assert.deepEqual((await call('GET', '/version')).body, { version: 1 });
  const head = await call('HEAD', '/api/things');
  assert.equal(head.status, 200);
  assert.equal(head.body, undefined, 'HEAD answers as GET, without the body');
});

test('a literal path wins over a parameterised one that also matches, whatever the order they were added in', async () => {
  assert.deepEqual((await call('GET', '/api/things/special')).body, { special: true });
});

test('paths are case-sensitive, as the Go controller matches them', async () => {
  const response = await call('GET', '/api/Things');
  assert.equal(response.status, 404);
  assert.equal(response.body.error.code, 'NOT_FOUND');
});

test('a known path with another method is 405 naming the allowed ones; unknown paths are 404, in the envelope', async () => {
  const refused = await call('PUT', '/api/things');
  assert.equal(refused.status, 405);
  assert.equal(refused.body.error.code, 'METHOD_NOT_ALLOWED');
  assert.deepEqual(refused.allow?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
  const options = await call('OPTIONS', '/api/things/x');
  assert.equal(options.status, 405);
  assert.deepEqual(options.allow?.split(', ').sort(), ['DELETE', 'GET', 'HEAD']);
  for (const path of ['/api/other', '/api/things/x/y', '/nothing']) {
    const missing = await call('GET', path);
    assert.equal(missing.status, 404, path);
    assert.equal(missing.body.error.code, 'NOT_FOUND', path);
  }
});

test('middleware chains run in order and unwind', async () => {
  seen.length = 0;
  assert.deepEqual((await call('GET', '/api/guarded')).body, { guarded: true });
  assert.deepEqual(seen, ['guard', 'handler', 'after']);
});

test('each request is counted under its route template, whole and within its prefix, made once per route; a 405 too', async () => {
  observed.length = 0;
  await call('GET', '/api/things/secret-id');
  await call('GET', '/api/things/other');
  await call('GET', '/api');
  await call('GET', '/version');
  await call('GET', '/api/nothing/here/at/all');
  await call('PATCH', '/api/things/x');
  const [first, second, apiRoot, version, missing, refused] = observed;
  assert.deepEqual(first!.route, { template: '/api/things/:id', label: '/things/:id' });
  assert.equal(second!.route, first!.route, 'the same object for every request on the route');
  assert.deepEqual(apiRoot!.route, { template: '/api', label: '/' });
  assert.deepEqual(version!.route, { template: '/version', label: '/version' });
  assert.equal(missing!.route, undefined);
  assert.equal(missing!.status, 404);
  assert.equal(refused!.status, 405);
  assert.equal(refused!.route?.template, '/api/things/:id');
});

test('the routes an app mounted can be listed from its middleware, without the HEAD each GET also answers', () => {
  const listed = app.middleware.flatMap((middleware) => routesOf(middleware)).map((route) => `${route.method} ${route.path}`);
  assert.deepEqual(listed.sort(), [
    'DELETE /api/things/:id',
    'GET /',
    'GET /api',
    'GET /api/guarded',
    'GET /api/things',
    'GET /api/things/:id',
    'GET /api/things/special',
    'GET /version',
    'POST /api/things',
  ]);
  assert.deepEqual(routesOf(() => undefined), [], 'any other middleware has no routes');
});

test('a request is routed within its first path segment under the prefix, and only under the prefix', async () => {
  assert.equal((await call('GET', '/apithings')).status, 404, 'a path that only starts with the prefix is not under it');
  assert.equal((await call('GET', '/api/things2')).status, 404);
  assert.equal((await call('GET', '/api//things')).status, 404);
  assert.deepEqual((await call('GET', '/api/')).body, { root: 'api' });
});

test('a route whose first segment is a parameter or pattern is refused when registered', () => {
  for (const path of ['/:id', '/things*', '/(a|b)/x']) assert.throws(() => apiRouter('/api').get(path, () => undefined), /first path segment must be literal/, path);
  assert.doesNotThrow(() => apiRouter('/api').get('/things/:id/:other', () => undefined));
});
