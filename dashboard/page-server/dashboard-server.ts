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
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import type { DashboardConfig } from '../config/dashboard-config.ts';
import type { ClusterGatherer } from './cluster-gatherer.ts';
import { loginAsAdmin } from './controller-login.ts';
import type { HttpClient } from './http-client.ts';
import { LoginThrottle } from './login-throttle.ts';
import type { NextHandler } from './next-app.ts';
import type { PageSession, PageSessions } from './page-sessions.ts';
import { runbooksPage, runbooksPath } from './runbooks-page.ts';

export interface DashboardServerDeps {
  readonly config: DashboardConfig;
  readonly gatherer: ClusterGatherer;
  readonly sessions: PageSessions;
  readonly http: HttpClient;
  readonly next: NextHandler;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Read at start when `tls` is set. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** docs/runbooks.md, when it is there. */
  readonly runbooks?: string;
}

export interface DashboardServer {
  /** http(s)://host:port, with the real port when the config says 0. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Open /api/stream connections at most; more get 503. */
export const maxStreams = 256;
/** A stream whose client reads slower than this much queued output is closed. */
const maxQueuedStreamBytes = 8 * 1024 * 1024;
const maxLoginBodyBytes = 16 * 1024;

const securityHeaders: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

export async function startDashboardServer(deps: DashboardServerDeps): Promise<DashboardServer> {
  const { config, gatherer, sessions, logger } = deps;
  const secure = deps.tls !== undefined;
  const loginRequired = config.auth === 'required';
  const cookieName = secure ? '__Host-edgeward-status' : 'edgeward-status';
  const throttle = new LoginThrottle({
    now: () => deps.clock.now(),
    maxFailuresPerAddress: config.loginThrottle.maxFailuresPerAddress,
    maxFailures: config.loginThrottle.maxFailures,
    reservedForKnown: config.loginThrottle.reservedForKnown,
    windowMs: config.loginThrottle.window,
    knownForMs: config.session.ttl,
  });
  const streams = new Set<ServerResponse>();
  const runbooksHtml = deps.runbooks === undefined ? undefined : runbooksPage(deps.runbooks);

  const sessionOf = (req: IncomingMessage): PageSession | undefined => sessions.lookup(cookieValue(req.headers.cookie, cookieName));
  const allowed = (req: IncomingMessage) => !loginRequired || sessionOf(req) !== undefined;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
  };

  // Set once listening (the real port): on loopback, a Host that is not the page's own is a rebound DNS name.
  let hostAllowed: (host: string | undefined) => boolean = () => false;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
    if (!hostAllowed(req.headers.host)) {
      json(res, misdirectedStatus, { error: 'this status page answers only for its own address (Host)' });
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/api/')) {
      switch (`${req.method} ${path}`) {
        case 'GET /api/health':
        case 'HEAD /api/health': {
          const latest = gatherer.latest();
          json(res, 200, { status: 'ok', generatedAt: latest ? new Date(latest.snapshot.generatedAt).toISOString() : null, streams: streams.size });
          return;
        }
        case 'GET /api/session': {
          const session = loginRequired ? sessionOf(req) : undefined;
          json(res, 200, { loginRequired, authenticated: !loginRequired || session !== undefined, ...(session ? { username: session.username } : {}) });
          return;
        }
        case 'POST /api/login':
          await login(req, res);
          return;
        case 'POST /api/logout': {
          if (!sameOrigin(req, secure)) {
            json(res, 403, { error: 'cross-origin request refused' });
            return;
          }
          sessions.logout(cookieValue(req.headers.cookie, cookieName));
          json(res, 200, { loggedOut: true }, { 'set-cookie': clearCookie(cookieName, secure) });
          return;
        }
        case 'GET /api/state': {
          if (!allowed(req)) {
            json(res, 401, { error: 'log in first: POST /api/login' });
            return;
          }
          const latest = gatherer.latest();
          if (!latest) json(res, 503, { error: 'the first gather has not finished yet' }, { 'retry-after': '1' });
          else json(res, 200, latest.stateBody);
          return;
        }
        case 'GET /api/stream':
          if (!allowed(req)) {
            json(res, 401, { error: 'log in first: POST /api/login' });
            return;
          }
          stream(req, res);
          return;
        default: {
          const known = ['/api/health', '/api/session', '/api/login', '/api/logout', '/api/state', '/api/stream'];
          json(res, known.includes(path) ? 405 : 404, { error: known.includes(path) ? `${req.method} is not allowed on ${path}` : `no such endpoint: ${path}` });
          return;
        }
      }
    }
    // The page: behind the login when one is required (its static files are not secret and load the login page).
    const open = path === '/login' || path.startsWith('/_next/static/') || path === '/favicon.ico' || path === '/icon.svg';
    if (loginRequired && !open && !sessionOf(req)) {
      res.writeHead(303, { location: '/login', 'cache-control': 'no-store' }).end();
      return;
    }
    if (path === '/login' && (!loginRequired || sessionOf(req))) {
      res.writeHead(303, { location: '/', 'cache-control': 'no-store' }).end();
      return;
    }
    if (path === runbooksPath && (req.method === 'GET' || req.method === 'HEAD') && runbooksHtml !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(req.method === 'HEAD' ? undefined : runbooksHtml);
      return;
    }
    if (path === '/docs/runbooks.md' && (req.method === 'GET' || req.method === 'HEAD') && deps.runbooks !== undefined) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' }).end(req.method === 'HEAD' ? undefined : deps.runbooks);
      return;
    }
    await deps.next.handle(req, res);
  };

  const login = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!loginRequired) {
      json(res, 404, { error: 'this status page asks for no login (auth: loopback-only)' });
      return;
    }
    if (!sameOrigin(req, secure)) {
      json(res, 403, { error: 'cross-origin request refused' });
      return;
    }
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      json(res, 415, { error: 'send the login as application/json' });
      return;
    }
    const address = req.socket.remoteAddress ?? 'unknown';
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, maxLoginBodyBytes));
    } catch (error) {
      json(res, 400, { error: (error as Error).message.startsWith('body') ? (error as Error).message : 'the body is not JSON' });
      return;
    }
    const fields = body as { username?: unknown; password?: unknown; code?: unknown };
    if (typeof fields?.username !== 'string' || typeof fields.password !== 'string' || fields.username === '' || fields.password === '' || (fields.code !== undefined && typeof fields.code !== 'string')) {
      json(res, 400, { error: 'username and password are required' });
      return;
    }
    // The slot is taken before the controller is asked, so attempts in flight count against both budgets.
    const reservation = throttle.reserve(address);
    if (!reservation.ok) {
      const error = reservation.scope === 'address' ? 'Too many failed logins from this address: try again later.' : 'Too many failed logins to this page: try again later.';
      logger.warn('status page login throttled', { address, scope: reservation.scope, retryAfterSeconds: reservation.retryAfterSeconds });
      json(res, 429, { error }, { 'retry-after': String(reservation.retryAfterSeconds) });
      return;
    }
    const { slot } = reservation;
    const origins = loginOrigins(gatherer, config);
    let outcome;
    try {
      outcome = await loginAsAdmin(deps.http, origins, { username: fields.username, password: fields.password, ...(typeof fields.code === 'string' && fields.code !== '' ? { code: fields.code } : {}) }, config.timeouts.login);
    } catch (error) {
      slot.released();
      throw error;
    }
    if (!outcome.ok) {
      // Refused credentials count for the window; no answer (503) or the controllers' own 429 does not.
      if (outcome.status === 401 || outcome.status === 403) slot.failed();
      else slot.released();
      logger.info('status page login refused', { username: fields.username, address, status: outcome.status, reason: outcome.message });
      json(res, outcome.status, { error: outcome.message, ...(outcome.mfaRequired ? { mfaRequired: true } : {}) });
      return;
    }
    slot.succeeded();
    const id = sessions.create(fields.username, { token: outcome.token, origin: outcome.origin });
    logger.info('status page login', { username: fields.username, address, controller: outcome.origin });
    json(res, 200, { username: fields.username }, { 'set-cookie': sessionCookie(cookieName, id, sessions.maxAgeSeconds, secure) });
  };

  const stream = (req: IncomingMessage, res: ServerResponse): void => {
    const first = gatherer.resetMessageJson();
    if (streams.size >= maxStreams || first === undefined) {
      json(res, 503, { error: first === undefined ? 'the first gather has not finished yet' : 'too many open streams' }, { 'retry-after': '2' });
      return;
    }
    const cookie = cookieValue(req.headers.cookie, cookieName);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(`retry: 2000\nevent: snapshot\ndata: ${first}\n\n`);
    streams.add(res);
    const unsubscribe = gatherer.subscribe((gathered) => {
      // An open page is a page in use: each message counts as activity; a session that ended closes its stream.
      if (loginRequired && sessions.lookup(cookie) === undefined) {
        res.end('event: logged-out\ndata: {}\n\n');
        return;
      }
      if (res.writableLength > maxQueuedStreamBytes) {
        res.destroy();
        return;
      }
      res.write(gathered.streamEvent);
    });
    const done = () => {
      unsubscribe();
      streams.delete(res);
    };
    res.on('close', done);
    req.on('close', done);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: Error) => {
      const requestId = randomUUID();
      logger.error('status page request failed', { requestId, method: req.method, path: req.url, error: error.message });
      if (!res.headersSent) json(res, 500, { error: 'internal error', requestId });
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
  hostAllowed = hostHeaderCheck(config.listen.host, port, secure ? 443 : 80);
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;
  const url = `${secure ? 'https' : 'http'}://${host}:${port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.destroy();
        streams.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where to log an operator in: the leader first, then the controllers that answer, then the rest. */
function loginOrigins(gatherer: ClusterGatherer, config: DashboardConfig): string[] {
  const controllers = gatherer.latest()?.snapshot.controllers ?? [];
  const rank = (url: string) => {
    const view = controllers.find((controller) => controller.url === url);
    return view?.role === 'leader' ? 0 : view?.reachable ? 1 : 2;
  };
  return config.controllers.map((controller) => controller.url).sort((a, b) => rank(a) - rank(b));
}

/** A cookie's value from the Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(name: string, id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${id}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

function clearCookie(name: string, secure: boolean): string {
  return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** A browser's cross-site POST carries its Origin: it must be this page's own. Requests without one (curl) pass. */
function sameOrigin(req: IncomingMessage, secure: boolean): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return origin === `${secure ? 'https' : 'http'}://${req.headers.host ?? ''}`;
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new Error(`body larger than ${maxBytes} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

