// A TCP echo server on 127.0.0.1 (a free port the system picks): the service the cross-process tests' routers host
// and dial. A connection's errors (a router resetting it) are swallowed, so a test process never dies of one.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface EchoServer {
  readonly server: Server;
  readonly port: number;
  /** Ends the open connections and stops listening; resolves once the server has closed. */
  close(): Promise<void>;
}

/** Starts echoing; `onConnection` sees each accepted socket first (to count or hold what a router dialed). */
export async function startEchoServer(onConnection: (socket: Socket) => void = () => undefined): Promise<EchoServer> {
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    onConnection(socket);
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of open) socket.destroy();
      server.close(() => resolve());
    });
  return { server, port: (server.address() as AddressInfo).port, close };
}
