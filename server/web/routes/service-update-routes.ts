// Client API: `GET /current-api-session/service-updates`: `lastChangeAt`, when the caller's service list last
// changed (server/edge/service-updates.ts), so an SDK refetches `/services` only when it moved.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { serviceListDigest, ServiceUpdateTracker } from '../../edge/service-updates.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { requireSession, sendDetail } from './route-kit.ts';

export function serviceUpdateRoutes(router: ApiRouter, services: EdgeServices, full: Middleware<RequestState>): void {
  const tracker = new ServiceUpdateTracker(services.clock);
  const { overlay } = services;
  router.get('/current-api-session/service-updates', full, (ctx) => {
    const session = requireSession(ctx);
    const identity = ctx.state.identity!;
    const digest = serviceListDigest(overlay.access.accessFor(identity), (id) => overlay.configs.find(id), session, services.clock.now(), overlay.identityConfigs.overridesFor(identity.id));
    sendDetail(ctx, { lastChangeAt: tracker.lastChangeAt(identity.id, digest) });
  });
}
