// The health-checks API: process health (`bolt.read`) and, on /controller/raft, leadership with 429 on followers.
import Router from '@koa/router';
import type { HealthChecker } from '../../health/health-checker.ts';
import type { RequestState } from '../koa-state.ts';

export function healthRoutes(checker: HealthChecker, raft: () => { isRaftEnabled: boolean; isLeader: boolean }): Router<RequestState> {
  const router = new Router<RequestState>({ prefix: '/health-checks' });
  router.get('/', (ctx) => {
    ctx.status = 200;
    ctx.body = { data: checker.report(ctx.query.type === 'short'), meta: {} };
  });
  router.get('/controller/raft', (ctx) => {
    const state = raft();
    ctx.status = state.isRaftEnabled && !state.isLeader ? 429 : 200;
    ctx.body = { data: checker.report(ctx.query.type === 'short'), meta: {}, raft: state };
  });
  return router;
}
