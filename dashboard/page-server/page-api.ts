// The status page's own small API under /api/ (listed in dashboard-server.ts): health, session, login, logout, the
// gathered state and its stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PageContext } from './page-context.ts';
import { clearCookie, cookieValue, sameOrigin, sendJson } from './page-http.ts';
import { openStream } from './page-stream.ts';

const endpoints = ['/api/health', '/api/session', '/api/login', '/api/logout', '/api/state', '/api/stream'];

export type ApiHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;

export function apiHandler(context: PageContext, login: (req: IncomingMessage, res: ServerResponse) => Promise<void>): ApiHandler {
  const { deps, loginRequired, streams } = context;
  return async (req, res, path) => {
    switch (`${req.method} ${path}`) {
      case 'GET /api/health':
      case 'HEAD /api/health': {
        const latest = deps.gatherer.latest();
        sendJson(res, 200, { status: 'ok', generatedAt: latest ? new Date(latest.snapshot.generatedAt).toISOString() : null, streams: streams.size });
        return;
      }
      case 'GET /api/session': {
        const session = loginRequired ? context.sessionOf(req) : undefined;
        sendJson(res, 200, { loginRequired, authenticated: !loginRequired || session !== undefined, ...(session ? { username: session.username } : {}) });
        return;
      }
      case 'POST /api/login':
        await login(req, res);
        return;
      case 'POST /api/logout': {
        if (!sameOrigin(req, context.secure)) {
          sendJson(res, 403, { error: 'cross-origin request refused' });
          return;
        }
        deps.sessions.logout(cookieValue(req.headers.cookie, context.cookieName));
        sendJson(res, 200, { loggedOut: true }, { 'set-cookie': clearCookie(context.cookieName, context.secure) });
        return;
      }
      case 'GET /api/state': {
        if (!context.allowed(req)) {
          sendJson(res, 401, { error: 'log in first: POST /api/login' });
          return;
        }
        const latest = deps.gatherer.latest();
        if (!latest) sendJson(res, 503, { error: 'the first gather has not finished yet' }, { 'retry-after': '1' });
        else sendJson(res, 200, latest.stateBody);
        return;
      }
      case 'GET /api/stream':
        if (!context.allowed(req)) {
          sendJson(res, 401, { error: 'log in first: POST /api/login' });
          return;
        }
        openStream(context, req, res);
        return;
      default: {
        const known = endpoints.includes(path);
        sendJson(res, known ? 405 : 404, { error: known ? `${req.method} is not allowed on ${path}` : `no such endpoint: ${path}` });
        return;
      }
    }
  };
}
