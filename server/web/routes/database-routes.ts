// Management API, admin: `POST /database/snapshot` (200: written, with where and at which raft index and term; 429
// while 4 wait; 503 SNAPSHOT_FAILED when the disk refuses), `POST /database/check-data-integrity` and
// `POST /database/fix-data-integrity` (202: started; 429 while one runs), `GET /database/data-integrity-results`.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { ApiRouter } from '../api-router.ts';
import type { RequestState } from '../koa-state.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import { sendDetail, sendJson } from './route-kit.ts';

export function databaseRoutes(router: ApiRouter, services: EdgeServices, admin: Middleware<RequestState>): void {
  const database = services.database;
  router.post('/database/snapshot', admin, async (ctx) => {
    let written;
    try {
      written = await database.snapshot({ trigger: 'request' });
    } catch (error) {
      if (error instanceof EdgeError) throw error;
      // A full disk or a folder it may not write: the operator's to fix, said plainly, never a 500 with a stack.
      services.logger.error('model snapshot failed', { error: (error as Error).message });
      throw new EdgeError('SNAPSHOT_FAILED', { code: 'SNAPSHOT_FAILED', message: `the snapshot could not be written: ${(error as Error).message}` });
    }
    services.logger.info('model snapshot written', { path: written.path, index: written.index, term: written.term, sizeBytes: written.sizeBytes });
    sendJson(ctx, 200, { data: { ...written }, meta: {} });
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
