// The benchmark's baselines: Koa 3 behind node:https with the controller's TLS options and plain middleware, no
// router: (a) `GET /bare`, a 28-byte JSON body, and (a′) `GET /bare-session`, which answers with a copy of the
// controller's real current-api-session response, captured once by run.ts before measuring: the same JSON body
// (serialised by Koa on each request, as (a) and the controller do) and the same `server`, `expires-at` and
// `expiration-seconds` headers, so (b) against (a′) compares only the work behind the response. Run as its own
// process (like the controller) so it never shares an event loop with wrk or the orchestrator.
// Usage: bare-koa-server.ts <chain.pem> <key.pem> <ca.pem> [<session-response.json>], the last holding
// {"body": "<response text>", "headers": {"<name>": "<value>", ...}}; without it, /bare-session is not served.
// Prints {"port":N} once listening and exits on SIGTERM, SIGINT or when its stdin closes (the parent is gone).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Koa from 'koa';

const [certFile, keyFile, caFile, sessionResponseFile] = process.argv.slice(2);
if (certFile === undefined || keyFile === undefined || caFile === undefined) {
  process.stderr.write('usage: bare-koa-server.ts <chain.pem> <key.pem> <ca.pem> [<session-response.json>]\n');
  process.exit(2);
}

/** The captured response: its body parsed (Koa writes it back out as (b)'s JSON) and the headers to repeat. */
function readSessionResponse(file: string): { body: unknown; headers: Record<string, string> } {
  const captured = JSON.parse(readFileSync(file, 'utf8')) as { body: string; headers: Record<string, string> };
  return { body: JSON.parse(captured.body), headers: captured.headers };
}
const sessionResponse = sessionResponseFile === undefined ? undefined : readSessionResponse(sessionResponseFile);

const app = new Koa();
app.silent = true;
app.use((ctx, next) => {
  if (ctx.method !== 'GET' || ctx.path !== '/bare') return next();
  ctx.status = 200;
  ctx.body = { data: { ok: true }, meta: {} };
  return undefined;
});
if (sessionResponse !== undefined) {
  const { body, headers } = sessionResponse;
  app.use((ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/bare-session') return next();
    ctx.status = 200;
    ctx.set(headers);
    ctx.body = body;
    return undefined;
  });
}

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
