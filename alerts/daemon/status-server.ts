// The daemon's own HTTP endpoint: `GET /metrics` (Prometheus text, prom-client), `GET /health` (200 and a small
// JSON summary while the daemon runs) and `GET /api/v1/status` (the alerts it holds firing, commit lag and the
// controllers' last health polls, as JSON: daemon-status.ts; what the status page reads). Bound to loopback it
// answers 421 to a `Host` that is not its own, so a web page that rebinds its DNS name to 127.0.0.1 cannot read it.

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostPort } from '../../common/config/address.ts';
import { hostHeaderCheck, misdirectedStatus } from '../../common/http/loopback-host.ts';
import type { DaemonMetrics } from './daemon-metrics.ts';
import type { DaemonStatus } from './daemon-status.ts';

export interface StatusServer {
  readonly address: HostPort;
  close(): Promise<void>;
}

export async function startStatusServer(listen: HostPort, metrics: DaemonMetrics, health: () => Record<string, unknown>, status: () => DaemonStatus): Promise<StatusServer> {
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const server: Server = createServer((req, res) => {
    if (!hostAllowed(req.headers.host)) {
      res.writeHead(misdirectedStatus, { 'content-type': 'text/plain' }).end('this server answers only for its own address (Host)\n');
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      metrics.exposition().then(
        (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
        (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
      );
    } else if (path === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify({ status: 'ok', ...health() })}\n`);
    } else if (path === '/api/v1/status') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(`${JSON.stringify(status())}\n`);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics, /health or /api/v1/status\n');
    }
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  hostAllowed = hostHeaderCheck(listen.host, address.port, 80);
  return {
    address: { host: listen.host, port: address.port },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
