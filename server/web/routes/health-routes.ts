// The health-checks API: process health (`bolt.read`) and, on /controller/raft, leadership with 429 on followers.
import { apiRouter, type ApiRouter } from '../api-router.ts';
import type { HealthChecker } from '../../health/health-checker.ts';

export function healthRoutes(checker: HealthChecker, raft: () => { isRaftEnabled: boolean; isLeader: boolean }): ApiRouter {
  const router = apiRouter('/health-checks');
  // 503 when a check fails, so load balancers and probes need not parse the body (the body says the same).
  router.get('/', (ctx) => {
    const report = checker.report(ctx.query.type === 'short');
    ctx.status = report.healthy ? 200 : 503;
    ctx.body = { data: report, meta: {} };
  });
  router.get('/controller/raft', (ctx) => {
    const state = raft();
    const report = checker.report(ctx.query.type === 'short');
    ctx.status = !report.healthy ? 503 : state.isRaftEnabled && !state.isLeader ? 429 : 200;
    ctx.body = { data: report, meta: {}, raft: state };
  });
  return router;
}
