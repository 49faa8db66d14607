// The demo's upstream behind the overlay: a plain HTTP server on 127.0.0.1 that answers `GET /<path>` with a body
// naming the path and `POST /echo-body` with the request body, byte for byte (streamed: a body of any size costs a
// few buffers, not its size). Anything else is 404 or 405 with a one-line reason.
import { createServer, type Server } from 'node:http';

export interface EchoServer {
  readonly port: number;
  readonly address: string;
  close(): Promise<void>;
}

export function echoRequestHandler(): Parameters<typeof createServer>[1] {
  return (request, response) => {
    const path = decodeURIComponentSafe((request.url ?? '/').split('?')[0]!);
    if (path === '/echo-body') {
      if (request.method !== 'POST' && request.method !== 'PUT') {
        response.writeHead(405, { 'content-type': 'text/plain', allow: 'POST, PUT' }).end('POST the body to echo\n');
        return;
      }
      const length = request.headers['content-length'];
      response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/octet-stream', ...(length ? { 'content-length': length } : {}) });
      request.pipe(response);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('only GET here; POST /echo-body echoes\n');
      request.resume();
      return;
    }
    const body = `edgeward demo echo: you asked for ${path}\n`;
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(request.method === 'HEAD' ? undefined : body);
  };
}

export async function startEchoServer(port = 0, host = '127.0.0.1'): Promise<EchoServer> {
  const server: Server = createServer(echoRequestHandler());
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as { port: number }).port;
  return {
    port: bound,
    address: `${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
