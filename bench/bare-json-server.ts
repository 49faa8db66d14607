// The status page benchmark's baseline: a bare node:http server that answers every GET with the same bytes the
// page's /api/state answered (captured once before measuring), with the same content type and cache header, and
// does nothing else. What is left between it and the page's server is the page's own work per request.
// Usage: bare-json-server.ts <body.json>. Prints {"port":N} once listening on 127.0.0.1; exits on SIGTERM, SIGINT or
// when its stdin closes (the parent is gone).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const [bodyFile] = process.argv.slice(2);
if (bodyFile === undefined) {
  process.stderr.write('usage: bare-json-server.ts <body.json>\n');
  process.exit(2);
}
const body = readFileSync(bodyFile);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': body.length }).end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdin.on('close', stop);
process.stdin.resume();
