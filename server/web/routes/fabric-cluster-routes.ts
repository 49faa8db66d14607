// The fabric API's cluster route, as OpenZiti serves it: `GET /fabric/v1/cluster/list-members`, the member table
// `agent cluster list` prints, from this controller's own view, for administrators. `readOnly` is this controller's
// read-only flag (cluster-wide in meaning), repeated on every row; `preferredLeader` appears only when true.
import type { Middleware } from 'koa';
import type { MemberRow } from '../../cluster/cluster-service.ts';
import type { RequestState } from '../koa-state.ts';
import { apiRouter, type ApiRouter } from '../api-router.ts';
import { sendDetail } from './route-kit.ts';

export const fabricApiPath = '/fabric/v1';

export interface ClusterView {
  readonly members: () => readonly MemberRow[];
  readonly readOnly: () => boolean;
}

export interface MemberView {
  readonly id: string;
  readonly address: string;
  readonly voter: boolean;
  readonly leader: boolean;
  readonly version: string;
  readonly connected: boolean;
  readonly readOnly: boolean;
  readonly preferredLeader?: true;
}

export function memberView(row: MemberRow, readOnly: boolean): MemberView {
  return {
    id: row.id,
    address: row.address,
    voter: row.voter,
    leader: row.leader,
    version: row.version,
    connected: row.connected,
    readOnly,
    ...(row.preferred ? { preferredLeader: true as const } : {}),
  };
}

export function fabricClusterRoutes(cluster: ClusterView, admin: Middleware<RequestState>): ApiRouter {
  const router = apiRouter(fabricApiPath);
  router.get('/cluster/list-members', admin, (ctx) => {
    const readOnly = cluster.readOnly();
    sendDetail(ctx, cluster.members().map((row) => memberView(row, readOnly)));
  });
  return router;
}
