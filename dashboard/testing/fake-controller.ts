// A stand-in controller for the status page's own tests: the health checks, /metrics, the fabric member list and
// enough of the management API to log in, each answering what the test sets, or not at all (`frozen`), like a
// SIGSTOPped process that accepts connections and never answers.

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  readonly password: string;
  readonly isAdmin: boolean;
  /** A TOTP code the login must answer. */
  readonly mfaCode?: string;
}

export class FakeController {
  raftStatus = 429;
  healthy = true;
  frozen = false;
  /** How long a password login takes to answer, so that concurrent logins overlap. */
  authenticateDelayMs = 0;
  /** The passwords of every password login received, in order. */
  readonly passwordsTried: string[] = [];
  metricsText = '';
  members: unknown[] = [];
  users: Record<string, FakeUser> = {};
  /** Tokens this controller takes, and whose they are; the ones an admin holds may read the member list. */
  readonly tokens = new Map<string, { username: string; mfaPending: boolean }>();
  readonly loggedOut: string[] = [];
  readonly requests: string[] = [];
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();
  private counter = 0;

  constructor(readonly id: string) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    this.requests.push(`${req.method} ${path}`);
    if (this.frozen) {
      this.hanging.add(res);
      return;
    }
    const json = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const healthBody = { data: { healthy: this.healthy, checks: [{ id: 'bolt.read', healthy: this.healthy, ...(this.healthy ? {} : { err: { message: 'bolt ping timed out' } }) }] }, meta: {} };
    const session = this.tokens.get(String(req.headers['zt-session'] ?? ''));
    switch (`${req.method} ${path}`) {
      case 'GET /health-checks':
        return json(this.healthy ? 200 : 503, healthBody);
      case 'GET /health-checks/controller/raft':
        return json(this.healthy ? this.raftStatus : 503, { ...healthBody, raft: { isRaftEnabled: true, isLeader: this.raftStatus === 200 } });
      case 'GET /metrics':
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(this.metricsText);
        return;
      case 'GET /fabric/v1/cluster/list-members':
        if (!session || session.mfaPending || !this.users[session.username]?.isAdmin) return json(401, { error: { code: 'UNAUTHORIZED', message: 'no' }, meta: {} });
        return json(200, { data: this.members, meta: {} });
      case 'POST /edge/management/v1/authenticate': {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => setTimeout(() => {
          const { username, password } = JSON.parse(body) as { username: string; password: string };
          this.passwordsTried.push(password);
          const user = this.users[username];
          if (!user || user.password !== password) return json(401, { error: { code: 'INVALID_AUTH', message: 'invalid' }, meta: {} });
          const token = `${this.id}-token-${++this.counter}`;
          this.tokens.set(token, { username, mfaPending: user.mfaCode !== undefined });
          json(200, { data: { token, authQueries: user.mfaCode ? [{ typeId: 'MFA', provider: 'ziti' }] : [] }, meta: {} });
        }, this.authenticateDelayMs));
        return;
      }
      case 'POST /edge/management/v1/authenticate/mfa': {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          const { code } = JSON.parse(body) as { code: string };
          if (!session || this.users[session.username]?.mfaCode !== code) return json(400, { error: { code: 'MFA_INVALID_TOKEN', message: 'wrong' }, meta: {} });
          session.mfaPending = false;
          json(200, { data: {}, meta: {} });
        });
        return;
      }
      case 'GET /edge/management/v1/current-identity':
        if (!session || session.mfaPending) return json(401, { error: { code: 'UNAUTHORIZED', message: 'no' }, meta: {} });
        return json(200, { data: { name: session.username, isAdmin: this.users[session.username]!.isAdmin }, meta: {} });
      case 'DELETE /edge/management/v1/current-api-session': {
        const token = String(req.headers['zt-session'] ?? '');
        if (this.tokens.delete(token)) this.loggedOut.push(token);
        return json(200, { data: {}, meta: {} });
      }
      default:
        return json(404, { error: { code: 'NOT_FOUND', message: path }, meta: {} });
    }
  }
}

/** A small exposition in the controllers' names. */
export function metricsText(figures: { isLeader: boolean; leader: string; applied: number; version?: string; queue?: number }): string {
  return [
    '# TYPE edgeward_raft_is_leader gauge',
    `edgeward_raft_is_leader ${figures.isLeader ? 1 : 0}`,
    'edgeward_raft_has_leader 1',
    `edgeward_raft_leader_info{leader_id="${figures.leader}"} 1`,
    'edgeward_raft_term 3',
    `edgeward_raft_commit_index ${figures.applied}`,
    `edgeward_raft_applied_index ${figures.applied}`,
    'edgeward_raft_voters 3',
    'edgeward_raft_voters_connected 3',
    `edgeward_raft_rate_limiter_queue_size ${figures.queue ?? 0}`,
    'edgeward_raft_rate_limiter_window_size 250',
    'edgeward_cluster_read_only 0',
    `edgeward_build_info{version="${figures.version ?? 'v0.1.0'}",node_version="v20.20.2"} 1`,
    `edgeward_process_start_time_seconds ${Date.now() / 1000 - 120}`,
    'edgeward_peer_latency_seconds_bucket{channel_id="ctrl2",le="0.001"} 4',
    'edgeward_peer_latency_seconds_bucket{channel_id="ctrl2",le="+Inf"} 5',
    'edgeward_peer_latency_seconds_sum{channel_id="ctrl2"} 0.02',
    'edgeward_peer_latency_seconds_count{channel_id="ctrl2"} 5',
    'a line that is not a sample',
    '',
  ].join('\n');
}
