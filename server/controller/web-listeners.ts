// The controller's web listeners: one Koa app per `web` entry, served over HTTPS on each of its bind points with the
// entry's TLS, timeouts and connection limit.
import { constants as cryptoConstants } from 'node:crypto';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { Logger } from '../../common/log/logger.ts';
import type { ApiBinding } from '../web/routes/version-routes.ts';
import { buildWebApp, type WebAppDeps } from '../web/web-app.ts';
import type { WebListener } from './controller-options.ts';

export interface WebListeners {
  /** Closes every listener and its open connections. */
  close(): Promise<void>;
}

/** https://host:port origins for each API, across every web entry's bind points. */
export function baseUrlsOf(webs: readonly WebListener[]): Partial<Record<ApiBinding, string[]>> {
  const baseUrls: Partial<Record<ApiBinding, string[]>> = {};
  for (const web of webs) for (const api of web.apis) for (const point of web.bindPoints) (baseUrls[api] ??= []).push(`https://${point.address}`);
  return baseUrls;
}

/** Listens on every bind point; if one cannot, the ones already listening are closed before the error is thrown. */
export async function startWebListeners(webs: readonly WebListener[], deps: Omit<WebAppDeps, 'logger' | 'maxBodyBytes'>, logger: Logger): Promise<WebListeners> {
  const servers: Server[] = [];
  const close = () => closeServers(servers);
  try {
    for (const web of webs) {
      const app = buildWebApp(web.apis, { ...deps, logger: logger.child('web', { web: web.name }), maxBodyBytes: web.maxBodyBytes });
      for (const point of web.bindPoints) {
        const server = httpsServerFor(web, app.callback());
        server.on('drop', dropLogger(logger, web.name, point.interfacePort, web.maxConnections));
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(point.interfacePort, point.interfaceHost, () => resolve());
        });
        servers.push(server);
        logger.info('web listener started', { web: web.name, interface: `${point.interfaceHost}:${point.interfacePort}`, apis: web.apis });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}

function httpsServerFor(web: WebListener, handler: ReturnType<ReturnType<typeof buildWebApp>['callback']>): Server {
  const server = createHttpsServer(
    {
      cert: web.tls.certPem,
      key: web.tls.keyPem,
      ca: web.tls.caPem,
      requestCert: true,
      rejectUnauthorized: false,
      // A resumed TLS session keeps only the client's leaf certificate, not the intermediates it sent, and
      // method=cert needs them to chain a third-party certificate: every connection does a full handshake.
      secureOptions: cryptoConstants.SSL_OP_NO_TICKET,
      minVersion: web.minTlsVersion,
      maxVersion: web.maxTlsVersion,
      handshakeTimeout: web.handshakeTimeoutMs,
      keepAliveTimeout: web.idleTimeoutMs,
      headersTimeout: web.readTimeoutMs,
      requestTimeout: web.requestTimeoutMs,
      // Node looks for requests past headersTimeout/requestTimeout only this often (30 s by default), which
      // would let a slow client hold its connection up to 30 s longer than configured.
      connectionsCheckingInterval: Math.min(1000, web.readTimeoutMs),
    },
    handler,
  );
  // A connection that neither sends nor reads for writeTimeout (a client that stopped reading its answer)
  // is destroyed; an idle keep-alive connection goes sooner, at keepAliveTimeout.
  server.setTimeout(web.writeTimeoutMs);
  server.maxConnections = web.maxConnections;
  server.on('tlsClientError', () => undefined);
  return server;
}

async function closeServers(servers: readonly Server[]): Promise<void> {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
}

/** Connections refused at maxConnections, logged at most once every 10 s with how many were refused since. */
function dropLogger(logger: Logger, web: string, port: number, maxConnections: number): () => void {
  let refused = 0;
  let lastLogged = 0;
  return () => {
    refused++;
    const now = Date.now();
    if (now - lastLogged < 10_000) return;
    logger.warn('web listener refused connections: maxConnections reached', { web, port, maxConnections, refused });
    lastLogged = now;
    refused = 0;
  };
}
