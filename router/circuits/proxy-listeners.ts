// The `proxy` mode of a tunnel listener: one TCP listener per `<service>:<port>` entry of `options.services`; every
// connection accepted on it becomes a circuit to that service (forwarder.ts), dialed as the router's identity. The
// listeners bind `options.bindAddress` (default 127.0.0.1: only this host's clients; `0.0.0.0` serves every
// interface). UDP entries (`<service>:<port>:udp`) are not served: logged and skipped.
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../../common/log/logger.ts';
import type { TunnelListenerConfig, TunnelService } from '../config/router-config.ts';

export const defaultProxyBindAddress = '127.0.0.1';

export interface ProxyTarget {
  dial(service: string, socket: Socket, listener: string): Promise<void>;
}

export interface ProxyEntry {
  readonly service: string;
  readonly host: string;
  readonly port: number;
}

/** The TCP entries of every proxy-mode tunnel listener, with the host each binds. */
export function proxyEntriesOf(listeners: readonly TunnelListenerConfig[], logger?: Logger): ProxyEntry[] {
  const entries: ProxyEntry[] = [];
  for (const listener of listeners) {
    if (listener.options.mode !== 'proxy') continue;
    const bind = typeof listener.options.bindAddress === 'string' && listener.options.bindAddress !== '' ? listener.options.bindAddress : defaultProxyBindAddress;
    for (const entry of listener.options.services ?? ([] as readonly TunnelService[])) {
      if (entry.protocol !== 'tcp') {
        logger?.warn('proxy entry not served: only tcp is proxied', { service: entry.service, port: entry.port, protocol: entry.protocol });
        continue;
      }
      entries.push({ service: entry.service, host: bind, port: entry.port });
    }
  }
  return entries;
}

export class ProxyListeners {
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly entries: readonly ProxyEntry[],
    private readonly target: ProxyTarget,
    private readonly logger: Logger,
  ) {}

  /** Binds every entry; rejects naming the first that cannot bind (those already bound are closed). */
  async start(): Promise<void> {
    for (const entry of this.entries) {
      const name = `${entry.service}:${entry.port}`;
      const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        void this.target.dial(entry.service, socket, name).catch((error: Error) => {
          this.logger.error('proxy connection failed', { listener: name, error: error.message });
          socket.destroy();
        });
      });
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(entry.port, entry.host, () => {
            server.removeListener('error', reject);
            resolve();
          });
        });
      } catch (error) {
        await this.stop();
        throw new Error(`tunnel proxy listener ${name} cannot listen on ${entry.host}:${entry.port}: ${(error as Error).message}`);
      }
      server.on('error', (error) => this.logger.error('proxy listener error', { listener: name, error: error.message }));
      this.servers.push(server);
      this.logger.info('proxy listener started', { service: entry.service, address: `${entry.host}:${entry.port}` });
    }
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}
