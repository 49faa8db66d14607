// The status page's HTTP(S) server: its own small API in front of the Next app.
//
//   GET  /api/health    200 while it runs (no login: for probes and the demo's readiness wait)
//   GET  /api/session   whether a login is required and whether this browser has one
//   POST /api/login     {username, password, code?}: an administrator of the controllers; sets the session cookie
//   POST /api/logout    ends the session
//   GET  /api/state     the latest snapshot and the chart history (JSON), as gathered: no I/O per request
//   GET  /api/stream    server-sent events: the snapshot and history first, then each new gather (the one subscription)
//   GET  /runbooks      the runbooks as a page, a section per alert at #<alert name in lower case>: where the
//                       alerts' runbook links lead by default (runbooks-page.ts)
//   GET  /docs/runbooks.md  the runbooks, as text: where the alerts' relative runbook links (docs/runbooks.md#...) lead
//   anything else       the Next app (the page, /login, its static files)
//
// On a loopback address every request must name the page in `Host` (127.0.0.1:<port>, localhost:<port>, [::1]:<port>
// or the configured address), else 421: a web page that rebinds its DNS name to 127.0.0.1 cannot read the page.
// With a login required (`auth: required`), /api/state, /api/stream and the page answer only with a session cookie:
// the API 401, the page a redirect to /login. The cookie is HttpOnly, SameSite=Strict, Secure (and __Host-) over TLS.

import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostHeaderCheck, misdirectedStatus } from '../../common/http/loopback-host.ts';
import { apiHandler } from './page-api.ts';
import { pageContext, type DashboardServerDeps, type PageContext } from './page-context.ts';
import { sendJson } from './page-http.ts';
import { loginHandler } from './page-login.ts';
import { runbooksPath } from './runbooks-page.ts';

export type { DashboardServerDeps } from './page-context.ts';

export interface DashboardServer {
  /** http(s)://host:port, with the real port when the config says 0. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

const securityHeaders: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

export async function startDashboardServer(deps: DashboardServerDeps): Promise<DashboardServer> {
  const { config, logger } = deps;
  const context = pageContext(deps);
  const api = apiHandler(context, loginHandler(context));
  // Set once listening (the real port): on loopback, a Host that is not the page's own is a rebound DNS name.
  let hostAllowed: (host: string | undefined) => boolean = () => false;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
    if (!hostAllowed(req.headers.host)) {
      sendJson(res, misdirectedStatus, { error: 'this status page answers only for its own address (Host)' });
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/api/')) await api(req, res, path);
    else await servePage(context, req, res, path);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: Error) => {
      const requestId = randomUUID();
      logger.error('status page request failed', { requestId, method: req.method, path: req.url, error: error.message });
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error', requestId });
      else res.destroy();
    });
  };
  const server: Server = deps.tls ? createHttpsServer({ cert: deps.tls.cert, key: deps.tls.key }, onRequest) : createHttpServer(onRequest);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hostAllowed = hostHeaderCheck(config.listen.host, port, context.secure ? 443 : 80);
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const url = `${context.secure ? 'https' : 'http'}://${host}:${port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of context.streams) res.destroy();
        context.streams.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The page, /login and the runbooks: behind the login when one is required (the static files are not secret and
 * load the login page). */
async function servePage(context: PageContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const { loginRequired, deps } = context;
  const open = path === '/login' || path.startsWith('/_next/static/') || path === '/favicon.ico' || path === '/icon.svg';
  if (loginRequired && !open && !context.sessionOf(req)) {
    res.writeHead(303, { location: '/login', 'cache-control': 'no-store' }).end();
    return;
  }
  if (path === '/login' && (!loginRequired || context.sessionOf(req))) {
    res.writeHead(303, { location: '/', 'cache-control': 'no-store' }).end();
    return;
  }
  if (path === runbooksPath && (req.method === 'GET' || req.method === 'HEAD') && context.runbooksHtml !== undefined) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(req.method === 'HEAD' ? undefined : context.runbooksHtml);
    return;
  }
  if (path === '/docs/runbooks.md' && (req.method === 'GET' || req.method === 'HEAD') && deps.runbooks !== undefined) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' }).end(req.method === 'HEAD' ? undefined : deps.runbooks);
    return;
  }
  await deps.next.handle(req, res);
}
