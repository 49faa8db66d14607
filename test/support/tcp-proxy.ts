// A TCP proxy a test controls: forwards connections to a target until cut, then drops every connection and
// refuses new ones until healed. Used to partition a controller from its peers.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private isCut = false;
  port = 0;

  constructor(private readonly targetPort: number, private readonly targetHost = '127.0.0.1') {}

  async start(port = 0): Promise<number> {
    const server = createServer((client) => {
      if (this.isCut) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) socket.destroy();
  }

  heal(): void {
    this.isCut = false;
  }

  async stop(): Promise<void> {
    this.cut();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
