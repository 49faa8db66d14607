import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from './api-error.ts';
import { RouteTable, routeTableOf, type RouteContext } from './route-table.ts';

function request(table: RouteTable, method: string, path: string) {
  const ctx = { method, path, state: {} } as unknown as RouteContext & { body?: unknown };
  let fellThrough = false;
  // Koa turns a synchronous throw into a rejection; so does this.
  const result = Promise.resolve().then(() => table.middleware()(ctx as never, async () => void (fellThrough = true)));
  return result.then(() => ({ ctx, fellThrough }));
}

test('exact and parameterised paths dispatch by method; params are decoded', async () => {
  const table = new RouteTable('/api')
    .get('/things', (ctx) => void ((ctx as { body?: unknown }).body = 'list'))
    .get('/things/:id', (ctx) => void ((ctx as { body?: unknown }).body = `one ${ctx.params.id}`))
    .delete('/things/:id', (ctx) => void ((ctx as { body?: unknown }).body = `gone ${ctx.params.id}`))
    .get('/', (ctx) => void ((ctx as { body?: unknown }).body = 'root'));
  assert.equal((await request(table, 'GET', '/api/things')).ctx.body, 'list');
  assert.equal((await request(table, 'GET', '/api/things/')).ctx.body, 'list', 'a trailing slash is the same path');
  assert.equal((await request(table, 'GET', '/api/things/a%20b')).ctx.body, 'one a b');
  assert.equal((await request(table, 'DELETE', '/api/things/x1')).ctx.body, 'gone x1');
  assert.equal((await request(table, 'GET', '/api')).ctx.body, 'root');
  assert.equal((await request(table, 'HEAD', '/api/things')).ctx.body, 'list');
});

test('unknown paths fall through; a known path with another verb is 405 naming the allowed ones', async () => {
  const table = new RouteTable('/api').get('/things', () => undefined).post('/things', () => undefined);
  assert.equal((await request(table, 'GET', '/api/other')).fellThrough, true);
  assert.equal((await request(table, 'GET', '/api/things/x/y')).fellThrough, true);
  await assert.rejects(request(table, 'PUT', '/api/things'), (error: ApiError) => error.code === 'METHOD_NOT_ALLOWED' && error.headers?.Allow === 'GET, POST');
});

test('middleware chains run in order and can stop early', async () => {
  const seen: string[] = [];
  const table = new RouteTable().get(
    '/guarded',
    async (_ctx, next) => {
      seen.push('guard');
      await next();
      seen.push('after');
    },
    () => void seen.push('handler'),
  );
  await request(table, 'GET', '/guarded');
  assert.deepEqual(seen, ['guard', 'handler', 'after']);
});

test('the routes a table holds can be listed, and found again from its middleware', () => {
  const table = new RouteTable('/api').get('/things', () => undefined).post('/things', () => undefined).delete('/things/:id', () => undefined).get('/', () => undefined);
  const middleware = table.middleware();
  assert.equal(routeTableOf(middleware), table);
  assert.equal(routeTableOf(() => undefined), undefined, 'any other middleware has no table');
  assert.deepEqual(
    table.routes().map((route) => `${route.method} ${route.path}`).sort(),
    ['DELETE /api/things/:id', 'GET /api', 'GET /api/things', 'POST /api/things'],
  );
});

test('a matched request carries its route template, whole and within the API, for metrics and spans; a 405 too', async () => {
  const table = new RouteTable('/api').get('/things/:id', () => undefined).get('/', () => undefined);
  const one = (await request(table, 'GET', '/api/things/secret-id')).ctx.state.route;
  assert.deepEqual(one, { template: '/api/things/:id', label: '/things/:id' });
  assert.equal((await request(table, 'GET', '/api/things/other')).ctx.state.route, one, 'made once per route, not per request');
  assert.deepEqual((await request(table, 'GET', '/api')).ctx.state.route, { template: '/api', label: '/' });
  assert.equal((await request(table, 'GET', '/api/nothing/here/at/all')).ctx.state.route, undefined);
  const refused = { method: 'DELETE', path: '/api/things/x', state: {} } as unknown as RouteContext;
  await assert.rejects(Promise.resolve().then(() => table.middleware()(refused as never, async () => undefined)));
  assert.equal(refused.state.route?.template, '/api/things/:id');
});
