// POST /api/login: an administrator of the controllers logs in to the status page, throttled per address and
// overall; the controllers decide the credentials, the page keeps the session.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClusterGatherer } from './cluster-gatherer.ts';
import type { DashboardConfig } from '../config/dashboard-config.ts';
import { loginAsAdmin } from './controller-login.ts';
import { LoginThrottle } from './login-throttle.ts';
import type { PageContext } from './page-context.ts';
import { readBody, sameOrigin, sendJson, sessionCookie } from './page-http.ts';

const maxLoginBodyBytes = 16 * 1024;

export function loginHandler(context: PageContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { deps, secure } = context;
  const { config, logger } = deps;
  const throttle = new LoginThrottle({
    now: () => deps.clock.now(),
    maxFailuresPerAddress: config.loginThrottle.maxFailuresPerAddress,
    maxFailures: config.loginThrottle.maxFailures,
    reservedForKnown: config.loginThrottle.reservedForKnown,
    windowMs: config.loginThrottle.window,
    knownForMs: config.session.ttl,
  });
  return async (req, res) => {
    const fields = await loginFields(context, req, res);
    if (!fields) return;
    const address = req.socket.remoteAddress ?? 'unknown';
    // The slot is taken before the controller is asked, so attempts in flight count against both budgets.
    const reservation = throttle.reserve(address);
    if (!reservation.ok) {
      const error = reservation.scope === 'address' ? 'Too many failed logins from this address: try again later.' : 'Too many failed logins to this page: try again later.';
      logger.warn('status page login throttled', { address, scope: reservation.scope, retryAfterSeconds: reservation.retryAfterSeconds });
      sendJson(res, 429, { error }, { 'retry-after': String(reservation.retryAfterSeconds) });
      return;
    }
    const { slot } = reservation;
    const origins = loginOrigins(deps.gatherer, config);
    let outcome;
    try {
      outcome = await loginAsAdmin(deps.http, origins, { username: fields.username, password: fields.password, ...(fields.code !== undefined && fields.code !== '' ? { code: fields.code } : {}) }, config.timeouts.login, () => deps.clock.now());
    } catch (error) {
      slot.released();
      throw error;
    }
    if (!outcome.ok) {
      // Refused credentials count for the window; no answer (503) or the controllers' own 429 does not.
      if (outcome.status === 401 || outcome.status === 403) slot.failed();
      else slot.released();
      logger.info('status page login refused', { username: fields.username, address, status: outcome.status, reason: outcome.message });
      sendJson(res, outcome.status, { error: outcome.message, ...(outcome.mfaRequired ? { mfaRequired: true } : {}) });
      return;
    }
    slot.succeeded();
    const id = deps.sessions.create(fields.username, { token: outcome.token, origin: outcome.origin, ...(outcome.oidc ? { oidc: outcome.oidc } : {}) });
    logger.info('status page login', { username: fields.username, address, controller: outcome.origin });
    sendJson(res, 200, { username: fields.username }, { 'set-cookie': sessionCookie(context.cookieName, id, deps.sessions.maxAgeSeconds, secure) });
  };
}

/** The login's username, password and code, or undefined once the request has been answered with why not. */
async function loginFields(context: PageContext, req: IncomingMessage, res: ServerResponse): Promise<{ username: string; password: string; code?: string } | undefined> {
  if (!context.loginRequired) {
    sendJson(res, 404, { error: 'this status page asks for no login (auth: loopback-only)' });
    return undefined;
  }
  if (!sameOrigin(req, context.secure)) {
    sendJson(res, 403, { error: 'cross-origin request refused' });
    return undefined;
  }
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    sendJson(res, 415, { error: 'send the login as application/json' });
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, maxLoginBodyBytes));
  } catch (error) {
    sendJson(res, 400, { error: (error as Error).message.startsWith('body') ? (error as Error).message : 'the body is not JSON' });
    return undefined;
  }
  const fields = body as { username?: unknown; password?: unknown; code?: unknown };
  if (typeof fields?.username !== 'string' || typeof fields.password !== 'string' || fields.username === '' || fields.password === '' || (fields.code !== undefined && typeof fields.code !== 'string')) {
    sendJson(res, 400, { error: 'username and password are required' });
    return undefined;
  }
  return { username: fields.username, password: fields.password, ...(typeof fields.code === 'string' ? { code: fields.code } : {}) };
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
