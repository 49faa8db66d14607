// Management API: /terminators and /services/:id/terminators, read-only. Terminators are registered by routers whose
// tunnel listener hosts services (and go when the router does); an admin lists and reads them. Listing asks the
// other controllers for their routers' terminators (cached briefly), as the edge router list does for isOnline.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { FieldCatalogue } from '../query/list-query.ts';
import type { TerminatorRecord } from '../../edge/terminator-directory.ts';
import { terminatorView } from '../views/terminator-view.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { sendDetail, sendList } from './route-kit.ts';

export const terminatorCatalogue: FieldCatalogue<TerminatorRecord> = {
  id: { type: 'string', get: (row) => row.id },
  createdAt: { type: 'datetime', get: (row) => row.createdAt },
  updatedAt: { type: 'datetime', get: (row) => row.updatedAt },
  service: { type: 'string', get: (row) => row.serviceId },
  serviceId: { type: 'string', get: (row) => row.serviceId },
  router: { type: 'string', get: (row) => row.routerId },
  routerId: { type: 'string', get: (row) => row.routerId },
  binding: { type: 'string', get: (row) => row.binding },
  address: { type: 'string', get: (row) => row.address },
  identity: { type: 'string', get: (row) => row.identity },
  cost: { type: 'number', get: (row) => row.cost },
  precedence: { type: 'string', get: (row) => row.precedence },
};

export function terminatorRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const view = (terminator: TerminatorRecord) =>
    terminatorView(terminator, services.overlay.services.find(terminator.serviceId)?.name ?? '', services.routers.find(terminator.routerId)?.name ?? '');
  router.get('/terminators', admin, async (ctx) => sendList(ctx, await services.terminators.list(), terminatorCatalogue, view));
  router.get('/terminators/:id', admin, async (ctx) => {
    const terminator = (await services.terminators.list()).find((item) => item.id === ctx.params.id);
    if (!terminator) throw EdgeError.notFound('terminator', ctx.params.id!);
    sendDetail(ctx, view(terminator));
  });
  router.get('/services/:id/terminators', admin, async (ctx) => {
    const service = services.overlay.services.get(ctx.params.id!);
    sendList(ctx, (await services.terminators.list()).filter((item) => item.serviceId === service.id), terminatorCatalogue, view);
  });
}
