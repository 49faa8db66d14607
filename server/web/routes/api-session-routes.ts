// Management API: /api-sessions (list, detail, administrative removal) and the read-only default /auth-policies.
import { isOidcSession } from '../../oidc/oidc-sessions.ts';
import type { ApiRouter } from '../api-router.ts';
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { apiSessionView } from '../views/api-session-view.ts';
import type { ApiSession } from '../../model/entities.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { RequestState } from '../koa-state.ts';
import { apiSessionCatalogue } from './catalogues.ts';
import { sendDetail, sendEmpty, sendList } from './route-kit.ts';

export function apiSessionRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const { sessions, identities } = services;
  const view = (session: ApiSession) =>
    apiSessionView(session, identities.find(session.identityId), {
      now: services.clock.now(),
      lastActivityMs: sessions.lastActivityMs(session),
      expiresAtMs: sessions.expiresAtMs(session),
    });
  const live = () => sessions.list().filter((session) => !sessions.isExpired(session));
  const get = (id: string) => {
    const session = sessions.get(id);
    if (!session || sessions.isExpired(session)) throw EdgeError.notFound('api session', id);
    return session;
  };

  router.get('/api-sessions', admin, (ctx) => sendList(ctx, live(), apiSessionCatalogue, view));
  router.get('/api-sessions/:id', admin, (ctx) => sendDetail(ctx, view(get(ctx.params.id!))));
  router.delete('/api-sessions/:id', admin, async (ctx) => {
    const session = get(ctx.params.id!);
    // An OIDC session is ended by revoking it: its tokens would otherwise still pass on every controller.
    if (isOidcSession(session)) await services.oidc.sessions.revoke(session.id);
    else await sessions.end([session.id], 'administrative');
    sendEmpty(ctx);
  });
}
