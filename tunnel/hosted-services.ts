// Hosting of `edgeward tunnel run`, as `ziti-edge-tunnel run-host` does: each service the identity may bind that has a
// `host.v1` config (tcp) is bound through the SDK, and each connection a dialer opens is connected to the config's
// address and port and piped both ways with half-close. `apply(services)` binds new ones, unbinds those gone, and binds
// again a service whose listener the router ended.
import { connect } from 'node:net';
import type { Logger } from '../common/log/logger.ts';
import type { EdgeService } from '../sdk/controller-client.ts';
import type { EdgeConnection } from '../sdk/edge-connection.ts';
import type { EdgeListener } from '../sdk/edge-listener.ts';
import type { EdgeSdk } from '../sdk/edge-sdk.ts';

/** The tcp target of a `host.v1` config, or why it has none. */
export function hostTarget(service: EdgeService): { host: string; port: number } | { reason: string } {
  const config = service.config['host.v1'] as { protocol?: unknown; address?: unknown; port?: unknown } | undefined;
  if (!config) return { reason: 'no host.v1 config' };
  if (config.protocol !== 'tcp') return { reason: `host.v1 protocol ${JSON.stringify(config.protocol)} is not tcp` };
  if (typeof config.address !== 'string' || typeof config.port !== 'number') return { reason: 'host.v1 names no fixed address and port' };
  return { host: config.address, port: config.port };
}

export class HostedServices {
  private readonly listeners = new Map<string, EdgeListener>();
  private readonly binding = new Set<string>();
  private readonly skipped = new Set<string>();
  private stopped = false;

  constructor(
    private readonly sdk: EdgeSdk,
    private readonly logger: Logger,
  ) {}

  async apply(services: readonly EdgeService[]): Promise<void> {
    if (this.stopped) return;
    const bindable = services.filter((service) => service.permissions.includes('Bind') && service.config['host.v1'] !== undefined);
    const names = new Set(bindable.map((service) => service.name));
    for (const [name, listener] of this.listeners) {
      if (names.has(name)) continue;
      this.listeners.delete(name);
      listener.close();
      this.logger.info('tunnel hosting stopped', { service: name, reason: 'service no longer bindable' });
    }
    await Promise.all(bindable.filter((service) => !this.listeners.has(service.name) && !this.binding.has(service.name)).map((service) => this.host(service)));
  }

  stop(): void {
    this.stopped = true;
    for (const [name, listener] of this.listeners) {
      listener.close();
      this.logger.info('tunnel hosting stopped', { service: name, reason: 'tunnel stopping' });
    }
    this.listeners.clear();
  }

  private async host(service: EdgeService): Promise<void> {
    const target = hostTarget(service);
    if ('reason' in target) {
      if (!this.skipped.has(service.name)) this.logger.warn('tunnel hosting skipped', { service: service.name, reason: target.reason });
      this.skipped.add(service.name);
      return;
    }
    this.binding.add(service.name);
    try {
      const listener = await this.sdk.bind(service.name, (connection) => this.forward(service.name, target, connection));
      if (this.stopped) return void listener.close();
      this.listeners.set(service.name, listener);
      this.skipped.delete(service.name);
      listener.once('close', (reason: string, byRouter: boolean) => {
        if (!byRouter || this.listeners.get(service.name) !== listener) return;
        this.listeners.delete(service.name);
        this.logger.warn('tunnel hosting ended by the router', { service: service.name, reason });
      });
      this.logger.info('tunnel hosting', { service: service.name, address: `${target.host}:${target.port}` });
    } catch (error) {
      this.logger.warn('tunnel bind failed', { service: service.name, error: (error as Error).message });
    } finally {
      this.binding.delete(service.name);
    }
  }

  private forward(service: string, target: { host: string; port: number }, connection: EdgeConnection): void {
    const socket = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    const fail = (error: Error) => {
      this.logger.warn('tunnel hosted connection failed', { service, address: `${target.host}:${target.port}`, error: error.message });
      socket.destroy();
      connection.destroy();
    };
    socket.once('error', fail);
    connection.once('error', fail);
    socket.once('close', () => connection.destroy());
    connection.once('close', () => socket.end());
    socket.pipe(connection);
    connection.pipe(socket);
  }
}
