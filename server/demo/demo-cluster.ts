// Forms the demo's controllers into one cluster through their agent sockets, as an operator would: on a fresh data
// folder `controller.init` on the first, then `cluster.add` of each other one; on later starts the members already
// know each other from their raft logs, so nothing is initialized or added again. Either way it waits until every
// controller names the same leader and the leader sees all of them as connected voters.
import { callAgent } from '../agent/agent-client.ts';
import type { MemberRow } from '../cluster/cluster-service.ts';

export interface ClusterMember {
  readonly id: string;
  readonly agentSocket: string;
  /** tls:host:port, as in the member's own config. */
  readonly ctrlAddress: string;
  readonly dataDir: string;
}

export interface FormClusterOptions {
  readonly admin: { readonly username: string; readonly password: () => string; readonly name: string };
  readonly log: (line: string) => void;
  /** Throws when the start-up should be abandoned (a controller given up on, or the demo asked to stop). */
  readonly guard: () => void;
  readonly timeoutMs: number;
}

export interface FormedCluster {
  /** Whether this start created the cluster (and the admin). */
  readonly created: boolean;
  readonly leader: string;
  readonly rows: MemberRow[];
}

const agentTimeoutMs = 60_000;

export async function agentCommand<T>(socket: string, command: string, args: Record<string, unknown> = {}, timeoutMs = agentTimeoutMs): Promise<T> {
  const response = await callAgent(socket, command, args, timeoutMs);
  if (!response.ok) throw new Error(`${command}: ${response.error}`);
  return response.result as T;
}

/** Polls `probe` until it returns a value, or fails naming what it waited for and the last error seen. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, guard: () => void = () => undefined, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    guard();
    try {
      const value = await probe();
      if (value !== undefined) return value;
      last = undefined;
    } catch (error) {
      last = error;
    }
    guard();
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

const list = (member: ClusterMember) => agentCommand<MemberRow[]>(member.agentSocket, 'cluster.list', {}, 15_000);
/** A controller lists itself only once it is a member of a cluster (a new, empty one has no configuration). */
const isInCluster = (member: ClusterMember, rows: readonly MemberRow[]) => rows.some((row) => row.id === member.id);

export async function formCluster(members: readonly ClusterMember[], options: FormClusterOptions): Promise<FormedCluster> {
  const { log, guard, timeoutMs, admin } = options;
  const views = await Promise.all(members.map((member) => until(`the agent of ${member.id} to answer cluster.list`, () => list(member), timeoutMs, guard)));

  const existing = members.find((member, index) => isInCluster(member, views[index]!));
  const seed = existing ?? members[0]!;
  const created = existing === undefined;
  if (created) {
    await agentCommand(seed.agentSocket, 'controller.init', { username: admin.username, password: admin.password(), name: admin.name });
    log(`initialized a new cluster on ${seed.id}`);
    log(`created the admin identity '${admin.username}'`);
  }

  for (const [index, member] of members.entries()) {
    if (member === seed) continue;
    // Connected controllers that are not members are listed too, as non-voters: only a voter row means a member.
    const seedRows = await until(`cluster.list on ${seed.id}`, () => list(seed), timeoutMs, guard);
    const listedByAnother = [seedRows, ...views.filter((_, other) => other !== index)].some((rows) => rows.some((row) => row.id === member.id && row.voter));
    if (listedByAnother) continue;
    if (isInCluster(member, views[index]!)) {
      throw new Error(`${member.id} belongs to a different cluster than ${seed.id}; stop the demo and remove ${member.dataDir} to have it join again`);
    }
    await until(
      `${member.id} to be added to the cluster`,
      async () => {
        // A timed-out attempt may still have been committed: look before asking again.
        if ((await list(seed)).some((row) => row.id === member.id && row.voter)) return true;
        await agentCommand(seed.agentSocket, 'cluster.add', { address: member.ctrlAddress, voter: true });
        log(`added ${member.id} (${member.ctrlAddress}) to the cluster`);
        return true;
      },
      timeoutMs,
      guard,
      1000,
    );
  }

  // Followers need not talk to each other, so "connected" is the leader's view; every member must name that leader.
  const ids = members.map((member) => member.id).sort();
  const formed = await until(
    `${ids.join(', ')} to be connected voters under one leader`,
    async () => {
      const all = await Promise.all(members.map(list));
      const named = new Set(all.map((rows) => rows.find((row) => row.leader)?.id));
      const leader = [...named][0];
      if (named.size !== 1 || leader === undefined) return undefined;
      const rows = all[members.findIndex((member) => member.id === leader)];
      if (!rows || rows.length !== ids.length || rows.filter((row) => row.leader).length !== 1) return undefined;
      const voters = rows.filter((row) => row.voter && row.connected).map((row) => row.id).sort();
      return voters.join() === ids.join() ? { leader, rows } : undefined;
    },
    timeoutMs,
    guard,
  );

  if (!created) {
    const leader = members.find((member) => member.id === formed.leader)!;
    const status = await agentCommand<{ initialized: boolean }>(leader.agentSocket, 'status');
    if (!status.initialized) {
      await agentCommand(leader.agentSocket, 'controller.init', { username: admin.username, password: admin.password(), name: admin.name });
      log(`created the admin identity '${admin.username}'`);
    }
  }
  return { created, ...formed };
}
