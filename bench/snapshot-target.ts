// The controller the snapshot benchmark writes to and snapshots: the leader of a three-controller cluster
// (bench/edgeward-cluster.ts), or one controller on its own (a cluster of one voter, test/support/controller-fixture.ts).
import { join } from 'node:path';
import { adminCredentials, ControllerFixture } from '../test/support/controller-fixture.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { ProbeClient } from './write-probe.ts';

export interface SnapshotTarget {
  readonly name: string;
  /** `…/edge/management/v1` */
  readonly managementApi: string;
  /** An admin session. */
  readonly token: string;
  readonly caPem: string;
  readonly dataDir: string;
  /** Its process id while it runs (for its CPU time). */
  pid(): number | undefined;
  /** How many identities named `<prefix>-…` it holds. */
  count(prefix: string): Promise<number>;
}

async function identityCount(probe: ProbeClient, managementApi: string, token: string, prefix: string): Promise<number> {
  const filter = encodeURIComponent(`name contains "${prefix}-"`);
  const answer = await probe.get(`${managementApi}/identities?filter=${filter}&limit=1`, { 'zt-session': token }, 60_000);
  const count = answer.status === 200 ? (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: unknown } } }).meta?.pagination?.totalCount : undefined;
  if (typeof count !== 'number') throw new Error(`counting identities: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  return count;
}

/** Starts `controllers` (1 or 3) under `root`; `started` gets each way to stop them as soon as they run. */
export async function snapshotTarget(controllers: 1 | 3, root: string, started: (stop: () => Promise<void>) => void, progress: (line: string) => void): Promise<SnapshotTarget> {
  if (controllers === 3) {
    progress('starting a three-controller cluster');
    const cluster = await EdgewardCluster.start(join(root, 'cluster'), started, progress);
    const leader = await cluster.leader(60_000);
    const load = await cluster.loadTarget(leader);
    return {
      name: `${cluster.memberNames[leader]} (the leader)`,
      managementApi: load.url.replace(/\/identities$/, ''),
      token: load.headers['zt-session']!,
      caPem: cluster.caPem,
      dataDir: cluster.dataDir(leader),
      pid: () => cluster.pids()[leader],
      count: (prefix) => cluster.storedCount(leader, prefix),
    };
  }
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
  return {
    name: 'ctrl1',
    managementApi: node.managementApi,
    token,
    caPem: node.caPem,
    dataDir: node.dataDir,
    pid: () => node.child?.pid,
    count: (prefix) => identityCount(probe, node.managementApi, token, prefix),
  };
}
