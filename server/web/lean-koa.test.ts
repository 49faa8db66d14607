import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import Koa from 'koa';
import { LeanKoa } from './lean-koa.ts';

type Case = { name: string; method?: string; handle: (ctx: Koa.Context) => void | Promise<void> };

const cases: Case[] = [
  { name: 'json object', handle: (ctx) => void (ctx.body = { data: { id: 'a1', name: 'ü' }, meta: {} }) },
  { name: 'json array with a status', handle: (ctx) => ((ctx.status = 201), (ctx.body = [1, 'two', null])) },
  { name: 'object without a prototype', handle: (ctx) => void (ctx.body = Object.assign(Object.create(null), { x: 1 })) },
  { name: 'text', handle: (ctx) => void (ctx.body = 'plain text') },
  { name: 'html', handle: (ctx) => void (ctx.body = '<p>hi</p>') },
  { name: 'buffer', handle: (ctx) => void (ctx.body = Buffer.from([1, 2, 3])) },
  { name: 'a class instance', handle: (ctx) => void (ctx.body = new Date(0)) },
  { name: 'empty status with a body', handle: (ctx) => ((ctx.body = { dropped: true }), (ctx.status = 204)) },
  { name: 'explicit null body', handle: (ctx) => void (ctx.body = null) },
  { name: 'no body, status set', handle: (ctx) => void (ctx.status = 409) },
  { name: 'no route', handle: () => undefined },
  { name: 'head', method: 'HEAD', handle: (ctx) => void (ctx.body = { data: 'x' }) },
  { name: 'stream', handle: (ctx) => void (ctx.body = Readable.from(['a', 'b', 'c'])) },
  { name: 'respond false', handle: (ctx) => ((ctx.respond = false), ctx.res.end('raw')) },
  { name: 'thrown error', handle: () => Promise.reject(Object.assign(new Error('boom'), { status: 418, expose: true })) },
  { name: 'unserialisable body', handle: (ctx) => void (ctx.body = { big: 1n }) },
  { name: 'custom header', handle: (ctx) => ((ctx.body = { ok: true }), ctx.set('x-thing', 'yes')) },
];

async function serve(app: Koa): Promise<{ server: Server; url: string; finishListeners: Map<string, number> }> {
  const finishListeners = new Map<string, number>();
  app.silent = true;
  app.use(async (ctx) => {
    const found = cases.find((c) => c.name === decodeURIComponent(ctx.path.slice(1)));
    // How many listen for the response's end: Node's server has one; Koa's on-finished adds one before the middleware.
    finishListeners.set(decodeURIComponent(ctx.path.slice(1)), ctx.res.listenerCount('finish'));
    if (found) await found.handle(ctx as Koa.Context);
  });
  const server = createServer(app.callback());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, finishListeners };
}

async function fetchRaw(url: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = res.headers;
        resolve({ status: res.statusCode!, headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

test('every kind of response is sent exactly as Koa sends it; nothing watches the response before the middleware', async () => {
  const koa = await serve(new Koa());
  const lean = await serve(new LeanKoa());
  try {
    for (const c of cases) {
      const path = `/${encodeURIComponent(c.name)}`;
      const expected = await fetchRaw(koa.url + path, c.method);
      const actual = await fetchRaw(lean.url + path, c.method);
      assert.deepEqual(actual, expected, c.name);
      assert.equal(koa.finishListeners.get(c.name), 2, `${c.name}: Node and Koa listen`);
      assert.equal(lean.finishListeners.get(c.name), 1, `${c.name}: only Node listens under LeanKoa`);
    }
    const json = await fetchRaw(`${lean.url}/json%20object`);
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(json.headers['content-length'], String(Buffer.byteLength('{"data":{"id":"a1","name":"ü"},"meta":{}}')));
    assert.equal((await fetchRaw(`${lean.url}/unserialisable%20body`)).status, 500, 'a body JSON cannot encode is a 500, not a crash');
    assert.equal((await fetchRaw(`${lean.url}/thrown%20error`)).body, 'boom');
  } finally {
    koa.server.close();
    lean.server.close();
  }
});
