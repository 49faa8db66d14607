// A TCP proxy a test controls: forwards connections to a target until cut, then drops every connection and
// refuses new ones until healed. Used to partition a controller from its peers. It can also cut only some clients
// (the connections one controller opened, told apart by their port), so that a controller's own outgoing
// connections into its peers' proxies go down with the ones coming in through its own.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private isCut = false;
  private cutClient: ((client: Socket) => boolean) | undefined;
  private readonly clients = new Map<Socket, Socket>();
  port = 0;

  /** `delayMs`: every chunk is held that long each way (in order): a slow link for path-cost tests. */
  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
    private readonly delayMs = 0,
  ) {}

  async start(port = 0): Promise<number> {
    const server = createServer((client) => {
      if (this.isCut || this.cutClient?.(client)) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      this.clients.set(client, upstream);
      client.on('close', () => this.clients.delete(client));
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      if (this.delayMs > 0) {
        const relay = (from: Socket, to: Socket) => from.on('data', (chunk: Buffer) => setTimeout(() => to.destroyed || to.write(chunk), this.delayMs));
        relay(client, upstream);
        relay(upstream, client);
      } else {
        client.pipe(upstream);
        upstream.pipe(client);
      }
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

  /** Drops the connections of the clients `matches` picks and refuses theirs until healClients(). */
  cutClients(matches: (client: Socket) => boolean): void {
    this.cutClient = matches;
    for (const [client, upstream] of this.clients) {
      if (!matches(client)) continue;
      client.destroy();
      upstream.destroy();
    }
  }

  healClients(): void {
    this.cutClient = undefined;
  }

  async stop(): Promise<void> {
    this.cut();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
