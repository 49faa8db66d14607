// Proxy mode of `edgeward tunnel run`: each service offered gets a TCP listener on the local host; each accepted
// connection is dialed through the SDK and the two are piped both ways with half-close. The service list is followed:
// `apply(services)` opens listeners for new services and closes those of services gone (the command calls it with the
// service list each time service updates say it moved).
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../common/log/logger.ts';
import type { EdgeService } from '../sdk/controller-client.ts';
import type { EdgeSdk } from '../sdk/edge-sdk.ts';
import { choosePort, servicesToOffer } from './proxy-ports.ts';

interface Offered {
  readonly server: Server;
  readonly port: number;
  readonly sockets: Set<Socket>;
}

export class ProxyTunnel {
  private readonly offered = new Map<string, Offered>();
  /** Services whose port could not be had, so the warning is logged once, not on every sync. */
  private readonly skipped = new Set<string>();
  private stopped = false;

  constructor(
    private readonly sdk: EdgeSdk,
    private readonly logger: Logger,
    private readonly options: { readonly proxies: ReadonlyMap<string, number>; readonly host: string },
  ) {}

  /** Opens and closes listeners to match `services`. */
  async apply(services: readonly EdgeService[]): Promise<void> {
    if (this.stopped) return;
    const wanted = servicesToOffer(services, this.options.proxies);
    const names = new Set(wanted.map((service) => service.name));
    for (const [name, offered] of this.offered) if (!names.has(name)) this.close(name, offered, 'service no longer dialable');
    for (const service of wanted) {
      if (this.offered.has(service.name)) continue;
      const choice = choosePort(service, this.options.proxies);
      if (choice.port === undefined) {
        if (!this.skipped.has(service.name)) this.logger.warn('tunnel service skipped', { service: service.name, reason: choice.reason });
        this.skipped.add(service.name);
        continue;
      }
      try {
        await this.listen(service.name, choice.port, choice.source);
        this.skipped.delete(service.name);
      } catch (error) {
        if (!this.skipped.has(service.name)) this.logger.error('tunnel listen failed', { service: service.name, address: `${this.options.host}:${choice.port}`, error: (error as Error).message });
        this.skipped.add(service.name);
      }
    }
    for (const name of this.options.proxies.keys()) {
      if (!names.has(name) && !this.skipped.has(name)) {
        this.logger.warn('tunnel service skipped', { service: name, reason: 'not a service this identity may dial' });
        this.skipped.add(name);
      }
    }
  }

  /** Closes every listener and connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.offered].map(([name, offered]) => this.close(name, offered, 'tunnel stopping')));
  }

  /** The ports open now, by service name. */
  get ports(): ReadonlyMap<string, number> {
    return new Map([...this.offered].map(([name, offered]) => [name, offered.port]));
  }

  private listen(service: string, port: number, source: string): Promise<void> {
    const sockets = new Set<Socket>();
    const server = createServer({ allowHalfOpen: true }, (socket) => this.accept(service, socket, sockets));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.options.host, () => {
        server.off('error', reject);
        server.on('error', (error) => this.logger.error('tunnel listener failed', { service, error: error.message }));
        this.offered.set(service, { server, port, sockets });
        this.logger.info('tunnel listening', { service, address: `${this.options.host}:${port}`, portFrom: source });
        resolve();
      });
    });
  }

  private accept(service: string, socket: Socket, sockets: Set<Socket>): void {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pause();
    this.sdk.dial(service).then(
      (connection) => {
        if (socket.destroyed) return void connection.destroy();
        connection.on('error', (error) => {
          this.logger.warn('tunnel connection failed', { service, error: error.message });
          socket.destroy();
        });
        socket.once('close', () => connection.destroy());
        connection.once('close', () => socket.end());
        // pipe() ends the other side when one side ends: half-close each way.
        socket.pipe(connection);
        connection.pipe(socket);
        socket.resume();
      },
      (error: Error) => {
        this.logger.warn('tunnel dial failed', { service, error: error.message, ...('edgeCode' in error ? { edgeCode: error.edgeCode, retryHint: (error as { retryHint?: number }).retryHint } : {}) });
        socket.destroy();
      },
    );
  }

  private async close(service: string, offered: Offered, reason: string): Promise<void> {
    this.offered.delete(service);
    for (const socket of offered.sockets) socket.destroy();
    await new Promise<void>((resolve) => offered.server.close(() => resolve()));
    this.logger.info('tunnel closed', { service, address: `${this.options.host}:${offered.port}`, reason });
  }
}
