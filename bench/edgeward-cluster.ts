// Three edgeward controller processes as one cluster, for bench/cluster-vs-etcd.ts and bench/login-flood.ts: a
// shared PKI, each controller from test/support/controller-fixture.ts (its own config with the default raft
// timeouts, data dir and ports, all under the benchmark's temp dir), formed with the agent's `cluster.add` as an
// operator would, and the leader found with `cluster.list`.
import { join } from 'node:path';
import { callAgent } from '../server/agent/agent-client.ts';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { readControllerConfig } from '../server/config/controller-config-file.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { adminCredentials, ControllerFixture } from '../test/support/controller-fixture.ts';
import type { ClusterUnderTest, LoadTarget } from './cluster-under-test.ts';
import { ProbeClient, until } from './write-probe.ts';

const ids = ['ctrl1', 'ctrl2', 'ctrl3'];

async function agent(node: ControllerFixture, command: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const response = await callAgent(node.agentSocket, command, args, 30_000);
  if (!response.ok) throw new Error(`${command} on ${node.id}: ${response.error}`);
  return response.result;
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

export class EdgewardCluster implements ClusterUnderTest {
  readonly system = 'edgeward' as const;
  readonly memberNames = ids;
  private probes: ProbeClient;
  private tokens = new Map<number, string>();

  private constructor(
    private readonly nodes: ControllerFixture[],
    /** The CA bundle clients trust the controllers with. */
    readonly caPem: string,
  ) {
    this.probes = new ProbeClient(caPem);
  }

  /** Starts the controllers under `root` (each fixture's folder goes there, so a failed start leaves nothing
   * elsewhere) and forms the cluster. `started` gets each controller as soon as it runs, so that the caller can
   * stop it whatever happens next. `options` changes every controller's config text or environment. */
  static async start(
    root: string,
    started: (stop: () => Promise<void>) => void,
    progress: (text: string) => void,
    options: { readonly editConfig?: (yaml: string) => string; readonly env?: NodeJS.ProcessEnv } = {},
  ): Promise<EdgewardCluster> {
    const pkiDir = join(root, 'pki');
    await initPki(pkiDir, { trustDomain: 'edgeward.bench' });
    const nodes: ControllerFixture[] = [];
    const previousTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = root;
    try {
      for (const [i, id] of ids.entries()) {
        progress(`starting controller ${id}`);
        const node = await ControllerFixture.create({ pkiDir, id, initAdmin: i === 0, ...options });
        nodes.push(node);
        started(() => EdgewardCluster.stopNode(node));
      }
    } finally {
      if (previousTmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmpdir;
    }
    const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
    // A member adds the others: asking a member to be added needs cluster.allowJoinRequests, off by default.
    progress('forming the cluster: ctrl1 adds ctrl2 and ctrl3');
    await agent(first, 'cluster.add', { address: second.ctrlAddress, voter: true });
    await agent(first, 'cluster.add', { address: third.ctrlAddress, voter: true });
    const cluster = new EdgewardCluster(nodes, first.caPem);
    await cluster.waitHealthy(60_000);
    return cluster;
  }

  private static async stopNode(node: ControllerFixture): Promise<void> {
    await withTimeout(node.dispose(), 15_000, `stopping ${node.id}`).catch(() => {
      node.child?.kill('SIGKILL');
      node.http.close();
    });
  }

  /** The raft timeouts the controllers run with, read back from their config. */
  async timeouts(): Promise<{ electionTimeoutMs: number; heartbeatTimeoutMs: number; commitTimeoutMs: number }> {
    const { config, problems } = await readControllerConfig(this.nodes[0]!.configFile);
    if (!config) throw new Error(`cannot read ${this.nodes[0]!.configFile}: ${problems.map((problem) => problem.message).join('; ')}`);
    return { electionTimeoutMs: config.cluster.electionTimeout, heartbeatTimeoutMs: config.cluster.heartbeatTimeout, commitTimeoutMs: config.cluster.commitTimeout };
  }

  /** A controller's fixture (its addresses, data folder and process), for a benchmark that stops, empties or restarts
   * one, or enrolls routers with it (bench/scale-bench.ts). */
  fixture(member: number): ControllerFixture {
    return this.node(member);
  }

  private node(member: number): ControllerFixture {
    const node = this.nodes[member];
    if (!node) throw new Error(`no controller ${member}`);
    return node;
  }

  /** One controller's raft term and the leader it follows, from its agent's `status`. */
  async status(member: number, timeoutMs = 2_000): Promise<{ term: number; leader: string | undefined }> {
    const response = await callAgent(this.node(member).agentSocket, 'status', {}, timeoutMs);
    if (!response.ok) throw new Error(`status on ${ids[member]}: ${response.error}`);
    const status = response.result as { term: number; leader?: string | null };
    return { term: status.term, leader: status.leader ?? undefined };
  }

  /** Where a client logs in with a password through this controller. */
  loginUrl(member: number): string {
    return `${this.node(member).clientApi}/authenticate?method=password`;
  }

  private async members(member: number): Promise<MemberRow[]> {
    return (await agent(this.node(member), 'cluster.list')) as MemberRow[];
  }

  /** The leader every controller names, when it lists all three as voters and is connected to the other two
   * (followers need not be connected to each other); undefined otherwise. */
  private async agreedLeader(): Promise<number | undefined> {
    const lists = await Promise.all(this.nodes.map((_, member) => this.members(member)));
    const leaders = new Set(lists.map((rows) => rows.filter((row) => row.leader).map((row) => row.id).join(',')));
    if (leaders.size !== 1) return undefined;
    const [leader] = leaders;
    const position = ids.indexOf(leader ?? '');
    if (position === -1) return undefined;
    const own = lists[position]!;
    return own.length === ids.length && own.every((row) => row.voter && row.connected) ? position : undefined;
  }

  leader(timeoutMs: number): Promise<number> {
    return until('the controllers to agree on a leader', async () => {
      const leader = await this.agreedLeader();
      return leader === undefined ? undefined : { leader };
    }, timeoutMs).then(({ leader }) => leader);
  }

  private async token(member: number, fresh = false): Promise<string> {
    const known = this.tokens.get(member);
    if (known !== undefined && !fresh) return known;
    const token = await this.node(member).login(adminCredentials.username, adminCredentials.password, 'management');
    this.tokens.set(member, token);
    return token;
  }

  async loadTarget(leader: number): Promise<LoadTarget> {
    return { url: `${this.node(leader).managementApi}/identities`, headers: { 'zt-session': await this.token(leader, true), 'content-type': 'application/json' }, kind: 'identity' };
  }

  async storedCount(member: number, prefix: string): Promise<number> {
    const filter = encodeURIComponent(`name contains "${prefix}-"`);
    const answer = await this.probes.get(`${this.node(member).managementApi}/identities?filter=${filter}&limit=1`, { 'zt-session': await this.token(member) }, 60_000);
    if (answer.status !== 200) throw new Error(`counting identities on ${ids[member]}: HTTP ${answer.status} ${answer.text}`);
    const count = (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: unknown } } }).meta?.pagination?.totalCount;
    if (typeof count !== 'number') throw new Error(`counting identities on ${ids[member]}: no totalCount in ${answer.text.slice(0, 200)}`);
    return count;
  }

  async prepareWrites(members: readonly number[]): Promise<void> {
    for (const member of members) {
      await this.token(member, true);
      const name = `ready-${Date.now().toString(36)}-${member}`;
      if (!(await this.write(member, name))) throw new Error(`a write through ${ids[member]} failed before the trial`);
    }
  }

  async write(member: number, name: string): Promise<boolean> {
    const token = this.tokens.get(member) ?? (await this.token(member));
    const answer = await this.probes.post(`${this.node(member).managementApi}/identities`, JSON.stringify({ name, isAdmin: false }), { 'zt-session': token });
    return answer.status === 201;
  }

  endWrites(): void {
    this.probes.close();
    this.probes = new ProbeClient(this.caPem);
  }

  pids(): (number | undefined)[] {
    return this.nodes.map((node) => node.child?.pid);
  }

  kill(member: number): void {
    const child = this.node(member).child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) throw new Error(`${ids[member]} is not running`);
    process.kill(child.pid, 'SIGKILL');
    this.tokens.delete(member);
  }

  async restart(member: number): Promise<void> {
    const node = this.node(member);
    const child = node.child;
    if (child && child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
    await node.start();
  }

  async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1_000, deadline - Date.now());
    await until('three connected voters agreeing on one leader, twice half a second apart', async () => {
      const before = await this.agreedLeader();
      if (before === undefined) return false;
      await new Promise((resolve) => setTimeout(resolve, 500));
      return before === (await this.agreedLeader());
    }, left());
    await until('a write through every controller', async () => {
      for (const [member] of this.nodes.entries()) {
        if (!(await this.write(member, `healthy-${Date.now().toString(36)}-${member}`))) return false;
      }
      return true;
    }, left());
  }

  async stop(): Promise<void> {
    this.probes.close();
    await Promise.all(this.nodes.map((node) => EdgewardCluster.stopNode(node)));
  }
}
