// Management API: GET /cas/{id}/jwt, a CA's auto-enrollment JWT as `application/jwt` text (ca-jwt.ts).
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';

export function caJwtRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  router.get('/cas/:id/jwt', admin, async (ctx) => {
    const jwt = await services.caJwt.jwtOf(ctx.params.id!);
    ctx.status = 200;
    ctx.set('Content-Type', 'application/jwt');
    ctx.body = jwt;
  });
}
