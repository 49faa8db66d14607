// The `health-checks` API of the router's `web` section: HTTPS on every bind point of every web entry that binds
// it, served with the entry's identity (or the router's server certificate). `GET /health-checks` answers the
// report with HTTP 200 whatever the health (as OpenZiti's router does); `?type=short` keeps only id and healthy.

import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../common/log/logger.ts';
import type { HealthReport } from './health-check-state.ts';

export interface HealthListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly certPem: string;
  readonly keyPem: string;
}

export class HealthServer {
  private readonly servers: Server[] = [];

  constructor(
    private readonly listeners: readonly HealthListener[],
    private readonly report: (short: boolean) => HealthReport,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    for (const listener of this.listeners) {
      const server = createServer({ cert: listener.certPem, key: listener.keyPem }, (request, response) => this.handle(request, response));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listener.port, listener.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.on('error', (error) => this.logger.error('health-checks listener error', { name: listener.name, error: error.message }));
      this.servers.push(server);
      this.logger.info('health-checks API listening', { name: listener.name, address: `${listener.host}:${listener.port}` });
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'https://router.invalid');
    if (url.pathname !== '/health-checks' && !url.pathname.startsWith('/health-checks/')) {
      return send(response, 404, { error: { code: 'NOT_FOUND', message: `no route for ${url.pathname}` }, meta: {} });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return send(response, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed` }, meta: {} });
    }
    send(response, 200, this.report(url.searchParams.get('type') === 'short'));
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  response.end(text);
}
