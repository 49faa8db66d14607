// Management API, admin: `POST /database/snapshot` (200: written), `POST /database/check-data-integrity` and
// `POST /database/fix-data-integrity` (202: started; 429 while one runs), `GET /database/data-integrity-results`.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ApiRouter } from '../api-router.ts';
import type { RequestState } from '../koa-state.ts';
import { sendDetail, sendJson } from './route-kit.ts';

export function databaseRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const database = services.database;
  router.post('/database/snapshot', admin, (ctx) => {
    const { path, appliedIndex } = database.snapshot();
    services.logger.info('model snapshot written', { path, appliedIndex });
    sendJson(ctx, 200, { data: {}, meta: {} });
  });
  router.post('/database/check-data-integrity', admin, (ctx) => {
    database.start(false);
    sendJson(ctx, 202, { data: {}, meta: {} });
  });
  router.post('/database/fix-data-integrity', admin, (ctx) => {
    database.start(true);
    sendJson(ctx, 202, { data: {}, meta: {} });
  });
  router.get('/database/data-integrity-results', admin, (ctx) => sendDetail(ctx, database.results()));
}
