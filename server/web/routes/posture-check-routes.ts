// Management API: /posture-checks. `typeId` picks the check's kind (it is the discriminator on create, PUT and
// PATCH): MFA, OS, MAC, DOMAIN, PROCESS or PROCESS_MULTI, each with its fields (posture-check-bodies.ts).
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { postureCheckView } from '../views/posture-check-view.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';
import { postureCheckCatalogue } from './service-catalogues.ts';
import { postureCheckInput } from './posture-check-bodies.ts';

export function postureCheckRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const checks = services.overlay.postureChecks;
  router.get('/posture-checks', admin, (ctx) => sendList(ctx, checks.list(), postureCheckCatalogue, postureCheckView));
  router.post('/posture-checks', admin, async (ctx) => {
    const { id } = await checks.create(postureCheckInput((await kit.body(ctx)) ?? {}));
    sendCreated(ctx, id, 'posture-checks');
  });
  router.get('/posture-checks/:id', admin, (ctx) => sendDetail(ctx, postureCheckView(checks.get(ctx.params.id!))));
  router.put('/posture-checks/:id', admin, async (ctx) => {
    const current = checks.get(ctx.params.id!);
    await checks.update(ctx.params.id!, postureCheckInput((await kit.body(ctx)) ?? {}, current));
    sendEmpty(ctx);
  });
  router.patch('/posture-checks/:id', admin, async (ctx) => {
    const current = checks.get(ctx.params.id!);
    await checks.update(ctx.params.id!, postureCheckInput((await kit.body(ctx)) ?? {}, current, { patch: true }));
    sendEmpty(ctx);
  });
  router.delete('/posture-checks/:id', admin, async (ctx) => {
    await checks.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}
