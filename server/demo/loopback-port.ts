// The preferred port on 127.0.0.1 when it is free, otherwise any free one.
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

export async function freeLoopbackPort(preferred: number): Promise<number> {
  const port = (await tryListen(preferred)) ?? (await tryListen(0));
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}
