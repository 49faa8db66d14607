// The benchmark's baseline: Koa 3 and @koa/router behind node:https with the controller's TLS options, one route
// and nothing else. Run as its own process (like the controller) so it never shares an event loop with wrk or the
// orchestrator. Usage: bare-koa-server.ts <chain.pem> <key.pem> <ca.pem>; prints {"port":N} once listening and
// exits on SIGTERM, SIGINT or when its stdin closes (the parent is gone).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Koa from 'koa';
import Router from '@koa/router';

const [certFile, keyFile, caFile] = process.argv.slice(2);
if (certFile === undefined || keyFile === undefined || caFile === undefined) {
  process.stderr.write('usage: bare-koa-server.ts <chain.pem> <key.pem> <ca.pem>\n');
  process.exit(2);
}

const app = new Koa();
app.silent = true;
const router = new Router();
router.get('/bare', (ctx) => {
  ctx.status = 200;
  ctx.body = { data: { ok: true }, meta: {} };
});
app.use(router.routes());
app.use(router.allowedMethods());

// Same options as server/controller/controller.ts with the example config's web options (idleTimeout 5s,
// readTimeout 5s, writeTimeout 100s, TLS 1.2 to 1.3), so only the application differs between the two runs.
const server = createServer(
  {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    ca: readFileSync(caFile, 'utf8'),
    requestCert: true,
    rejectUnauthorized: false,
    minVersion: 'TLSv1.2',
    maxVersion: 'TLSv1.3',
    keepAliveTimeout: 5_000,
    headersTimeout: 6_000,
    requestTimeout: 100_000,
  },
  app.callback(),
);
server.on('tlsClientError', () => undefined);

const shutdown = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
process.stdin.on('end', shutdown);
process.stdin.resume();

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
