// Three etcd members (Debian's etcd-server) as one cluster, for bench/cluster-vs-etcd.ts: client and peer URLs on
// free loopback ports, data dirs and logs under the benchmark's temp dir, durable defaults (see etcd-member.ts),
// and the leader found from each member's `POST /v3/maintenance/status`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../test/support/free-port.ts';
import { stopChild, track } from './child-processes.ts';
import type { ClusterUnderTest, LoadTarget } from './cluster-under-test.ts';
import { agreedLeader, clientUrl, countPrefixBody, etcdArgs, etcdEnv, putBody, rangeCount, type EtcdMemberSpec, type EtcdStatus } from './etcd-member.ts';
import { ProbeClient, until } from './write-probe.ts';

const names = ['etcd1', 'etcd2', 'etcd3'];
const value = 'v'.repeat(128);

/** `etcd --version`'s version, or an error saying how to install it. */
export function etcdVersion(): string {
  const result = spawnSync('etcd', ['--version'], { encoding: 'utf8', timeout: 10_000, env: etcdEnv(process.env) });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new Error('etcd is not installed: run bench/run.sh, or apt-get install etcd-server');
  const version = /etcd Version: (\S+)/.exec(`${result.stdout}${result.stderr}`)?.[1];
  if (!version) throw new Error(`etcd --version said: ${result.stdout}${result.stderr}`);
  return version;
}

export class EtcdCluster implements ClusterUnderTest {
  readonly system = 'etcd' as const;
  readonly memberNames = names;
  private readonly children: (ChildProcess | undefined)[];
  private probes = new ProbeClient();

  private constructor(
    private readonly specs: readonly EtcdMemberSpec[],
    private readonly token: string,
  ) {
    this.children = specs.map(() => undefined);
  }

  /** Starts the three members under `root` and waits until they have a leader. The cluster's stop() stops them
   * and is safe to call even when this throws halfway, through `created`. */
  static async start(root: string, created: (cluster: EtcdCluster) => void, progress: (text: string) => void): Promise<EtcdCluster> {
    const dir = join(root, 'etcd');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const specs: EtcdMemberSpec[] = [];
    for (const name of names) {
      specs.push({ name, dataDir: join(dir, `${name}.data`), clientPort: await freePort(), peerPort: await freePort(), logFile: join(dir, `${name}.log`) });
    }
    const cluster = new EtcdCluster(specs, `edgeward-bench-${process.pid}-${Date.now().toString(36)}`);
    created(cluster);
    progress(`starting etcd members ${names.join(', ')} (client ports ${specs.map((spec) => spec.clientPort).join(', ')})`);
    for (const [member] of specs.entries()) cluster.spawn(member);
    await cluster.waitHealthy(60_000);
    return cluster;
  }

  private spawn(member: number): void {
    const spec = this.specs[member]!;
    const child = track(spawn('etcd', etcdArgs(spec, this.specs, this.token), { stdio: ['ignore', 'ignore', 'pipe'], env: etcdEnv(process.env) }));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString()}`.slice(-4_000)));
    child.once('exit', (code, signal) => {
      if (this.children[member] === child && signal !== 'SIGKILL' && signal !== 'SIGTERM') process.stderr.write(`bench: ${spec.name} exited (${code ?? signal})\n${stderr}${this.logTail(member)}\n`);
    });
    this.children[member] = child;
  }

  private logTail(member: number): string {
    try {
      return readFileSync(this.specs[member]!.logFile, 'utf8').slice(-4_000);
    } catch {
      return '';
    }
  }

  private url(member: number, path: string): string {
    return `${clientUrl(this.specs[member]!)}${path}`;
  }

  private isRunning(member: number): boolean {
    const child = this.children[member];
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  private async status(member: number): Promise<EtcdStatus | undefined> {
    if (!this.isRunning(member)) return undefined;
    const answer = await this.probes.post(this.url(member, '/v3/maintenance/status'), '{}', {}, 2_000).catch(() => undefined);
    return answer?.status === 200 ? (JSON.parse(answer.text) as EtcdStatus) : undefined;
  }

  async leader(timeoutMs: number): Promise<number> {
    const { leader } = await until('the etcd members to agree on a leader', async () => {
      const position = agreedLeader(await Promise.all(this.specs.map((_, member) => this.status(member))));
      return position === undefined ? undefined : { leader: position };
    }, timeoutMs);
    return leader;
  }

  async loadTarget(leader: number): Promise<LoadTarget> {
    return { url: this.url(leader, '/v3/kv/put'), headers: { 'content-type': 'application/json' }, kind: 'etcd' };
  }

  async storedCount(member: number, prefix: string): Promise<number> {
    const answer = await this.probes.post(this.url(member, '/v3/kv/range'), countPrefixBody(`${prefix}-`), {}, 60_000);
    if (answer.status !== 200) throw new Error(`counting keys on ${names[member]}: HTTP ${answer.status} ${answer.text}`);
    return rangeCount(JSON.parse(answer.text));
  }

  async prepareWrites(members: readonly number[]): Promise<void> {
    for (const member of members) {
      if (!(await this.write(member, `ready-${Date.now().toString(36)}-${member}`))) throw new Error(`a put through ${names[member]} failed before the trial`);
    }
  }

  async write(member: number, name: string): Promise<boolean> {
    const answer = await this.probes.post(this.url(member, '/v3/kv/put'), putBody(name, value));
    if (answer.status !== 200) return false;
    // The gateway answers errors with a non-200 status; a 200 carries the response header.
    return (JSON.parse(answer.text) as { header?: unknown; error?: unknown }).header !== undefined;
  }

  endWrites(): void {
    this.probes.close();
    this.probes = new ProbeClient();
  }

  pids(): (number | undefined)[] {
    return this.children.map((child, member) => (this.isRunning(member) ? child?.pid : undefined));
  }

  kill(member: number): void {
    const child = this.children[member];
    if (!child?.pid || !this.isRunning(member)) throw new Error(`${names[member]} is not running`);
    process.kill(child.pid, 'SIGKILL');
  }

  async restart(member: number): Promise<void> {
    const child = this.children[member];
    if (child && this.isRunning(member)) await new Promise((resolve) => child.once('exit', resolve));
    this.spawn(member);
  }

  async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1_000, deadline - Date.now());
    await until('three etcd members agreeing on one leader, twice half a second apart', async () => {
      const down = this.specs.findIndex((_, member) => !this.isRunning(member));
      if (down !== -1) throw new Error(`${names[down]} is not running${this.logTail(down) ? `; its log ends:\n${this.logTail(down)}` : ''}`);
      const before = agreedLeader(await Promise.all(this.specs.map((_, member) => this.status(member))));
      if (before === undefined) return false;
      await new Promise((resolve) => setTimeout(resolve, 500));
      return before === agreedLeader(await Promise.all(this.specs.map((_, member) => this.status(member))));
    }, left());
    await until('a put through every member', async () => {
      for (const [member] of this.specs.entries()) {
        if (!(await this.write(member, `healthy-${Date.now().toString(36)}-${member}`))) return false;
      }
      return true;
    }, left());
  }

  async stop(): Promise<void> {
    this.probes.close();
    await Promise.all(this.children.map((child) => child && stopChild(child)));
  }
}
