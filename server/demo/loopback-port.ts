// The preferred port on 127.0.0.1 when it is free, otherwise any free one; ports in `avoid` (already promised to
// another process of the same appliance) are never returned.
import { createServer } from 'node:net';

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/** The first free port of `preferred` (one port or several, in order), otherwise any free port. */
export async function freeLoopbackPort(preferred: number | readonly number[], avoid: ReadonlySet<number> = new Set()): Promise<number> {
  const candidates = typeof preferred === 'number' ? [preferred] : preferred;
  for (const candidate of candidates) {
    if (avoid.has(candidate)) continue;
    const port = await tryListen(candidate);
    if (port !== undefined) return port;
  }
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await tryListen(0);
    if (port !== undefined && !avoid.has(port)) return port;
  }
  throw new Error('no free port on 127.0.0.1');
}
