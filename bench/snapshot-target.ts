// The controllers the snapshot benchmark runs against: a three-controller cluster (bench/edgeward-cluster.ts), whose
// leader takes the writes and the snapshots, or one controller on its own (a cluster of one voter,
// test/support/controller-fixture.ts). A snapshot that holds the leader's thread long enough costs it its
// leadership, so the leader is looked up again before each measurement and the raft term is read around it.
import { join } from 'node:path';
import { callAgent } from '../server/agent/agent-client.ts';
import { adminCredentials, ControllerFixture } from '../test/support/controller-fixture.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { ProbeClient } from './write-probe.ts';

/** The controller that takes the writes and the snapshots. */
export interface SnapshotController {
  readonly name: string;
  /** `…/edge/management/v1` */
  readonly managementApi: string;
  /** An admin session. */
  readonly token: string;
  /** Its process id while it runs (for its CPU time). */
  pid(): number | undefined;
}

export interface SnapshotTarget {
  readonly controllers: 1 | 3;
  readonly caPem: string;
  /** The leader (the one controller), once every member agrees on it. */
  leader(timeoutMs: number): Promise<SnapshotController>;
  /** The highest raft term any reachable member is in: it rises with each election. */
  term(): Promise<number>;
  /** How many identities named `<prefix>-…` the leader holds. */
  count(prefix: string): Promise<number>;
}

async function identityCount(probe: ProbeClient, managementApi: string, token: string, prefix: string): Promise<number> {
  const filter = encodeURIComponent(`name contains "${prefix}-"`);
  const answer = await probe.get(`${managementApi}/identities?filter=${filter}&limit=1`, { 'zt-session': token }, 60_000);
  const count = answer.status === 200 ? (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: unknown } } }).meta?.pagination?.totalCount : undefined;
  if (typeof count !== 'number') throw new Error(`counting identities: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  return count;
}

async function clusterTarget(root: string, started: (stop: () => Promise<void>) => void, progress: (line: string) => void): Promise<SnapshotTarget> {
  progress('starting a three-controller cluster');
  const cluster = await EdgewardCluster.start(join(root, 'cluster'), started, progress);
  const sessions = new Map<number, { managementApi: string; token: string }>();
  const leader = async (timeoutMs: number): Promise<SnapshotController> => {
    const member = await cluster.leader(timeoutMs);
    let session = sessions.get(member);
    if (session === undefined) {
      const load = await cluster.loadTarget(member);
      session = { managementApi: load.url.replace(/\/identities$/, ''), token: load.headers['zt-session']! };
      sessions.set(member, session);
    }
    return { name: cluster.memberNames[member]!, ...session, pid: () => cluster.pids()[member] };
  };
  return {
    controllers: 3,
    caPem: cluster.caPem,
    leader,
    term: async () => {
      const terms = await Promise.all(cluster.memberNames.map((_, member) => cluster.status(member, 5_000).then((status) => status.term, () => 0)));
      return Math.max(...terms);
    },
    count: async (prefix) => cluster.storedCount(await cluster.leader(60_000), prefix),
  };
}

async function singleTarget(root: string, started: (stop: () => Promise<void>) => void, progress: (line: string) => void): Promise<SnapshotTarget> {
  progress('starting one controller');
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.bench' });
  const previousTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let node: ControllerFixture;
  try {
    node = await ControllerFixture.create({ pkiDir, id: 'ctrl1' });
  } finally {
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
  }
  const probe = new ProbeClient(node.caPem);
  started(async () => {
    probe.close();
    await node.dispose();
  });
  const token = await node.login(adminCredentials.username, adminCredentials.password, 'management');
  const controller: SnapshotController = { name: 'ctrl1', managementApi: node.managementApi, token, pid: () => node.child?.pid };
  return {
    controllers: 1,
    caPem: node.caPem,
    leader: async () => controller,
    term: async () => {
      const response = await callAgent(node.agentSocket, 'status', {}, 5_000);
      if (!response.ok) throw new Error(`status: ${response.error}`);
      return (response.result as { term: number }).term;
    },
    count: (prefix) => identityCount(probe, node.managementApi, token, prefix),
  };
}

/** Starts `controllers` (1 or 3) under `root`; `started` gets each way to stop them as soon as they run. */
export function snapshotTarget(controllers: 1 | 3, root: string, started: (stop: () => Promise<void>) => void, progress: (line: string) => void): Promise<SnapshotTarget> {
  return controllers === 3 ? clusterTarget(root, started, progress) : singleTarget(root, started, progress);
}
