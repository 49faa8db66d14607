// Pure helpers for the etcd side of bench/cluster-vs-etcd.ts: a member's command line (durable defaults, stated
// explicitly), the JSON gateway's request bodies (keys and values are base64) and reading the leader from the
// members' status answers.

/** etcd's own defaults, passed explicitly so the report states what ran: heartbeat 100 ms, election 1000 ms. */
export const etcdTimeouts = { heartbeatIntervalMs: 100, electionTimeoutMs: 1000 } as const;

export interface EtcdMemberSpec {
  readonly name: string;
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly logFile: string;
}

export const clientUrl = (member: EtcdMemberSpec) => `http://127.0.0.1:${member.clientPort}`;
const peerUrl = (member: EtcdMemberSpec) => `http://127.0.0.1:${member.peerPort}`;

/** The command line of one member of `cluster`. fsync stays on (no unsafe flag), snapshots and compaction keep
 * their defaults; plain HTTP for clients and peers, on loopback. The same arguments restart a member: with its
 * data dir in place etcd ignores the initial-cluster flags. */
export function etcdArgs(member: EtcdMemberSpec, cluster: readonly EtcdMemberSpec[], token: string): string[] {
  return [
    `--name=${member.name}`,
    `--data-dir=${member.dataDir}`,
    `--listen-client-urls=${clientUrl(member)}`,
    `--advertise-client-urls=${clientUrl(member)}`,
    `--listen-peer-urls=${peerUrl(member)}`,
    `--initial-advertise-peer-urls=${peerUrl(member)}`,
    `--initial-cluster=${cluster.map((other) => `${other.name}=${peerUrl(other)}`).join(',')}`,
    `--initial-cluster-token=${token}`,
    '--initial-cluster-state=new',
    `--heartbeat-interval=${etcdTimeouts.heartbeatIntervalMs}`,
    `--election-timeout=${etcdTimeouts.electionTimeoutMs}`,
    '--logger=zap',
    `--log-outputs=${member.logFile}`,
    '--log-level=warn',
  ];
}

/** The environment for etcd: ours without ETCD_* variables, which etcd would read as flags. */
export function etcdEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('ETCD_')));
}

const base64 = (bytes: string | Buffer) => Buffer.from(bytes).toString('base64');

/** The body of `POST /v3/kv/put`. */
export function putBody(key: string, value: string): string {
  return JSON.stringify({ key: base64(key), value: base64(value) });
}

/** The end of the key range holding every key that starts with `prefix`: the prefix with its last byte below 0xff
 * raised by one (etcd's `--prefix`). */
export function prefixRangeEnd(prefix: string | Buffer): Buffer {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 0xff) {
      const end = Buffer.from(bytes.subarray(0, i + 1));
      end[i]! += 1;
      return end;
    }
  }
  // All 0xff (or empty): every key from the prefix on; etcd reads "\0" as "to the end".
  return Buffer.from([0]);
}

/** The body of `POST /v3/kv/range` counting the keys that start with `prefix`. */
export function countPrefixBody(prefix: string): string {
  return JSON.stringify({ key: base64(prefix), range_end: base64(prefixRangeEnd(prefix)), count_only: true });
}

/** The count from a range answer; the gateway writes 64-bit numbers as strings and leaves out zero values. */
export function rangeCount(answer: unknown): number {
  const count = (answer as { count?: unknown } | undefined)?.count;
  if (count === undefined) return 0;
  const value = Number(count);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`etcd range answered a count of ${JSON.stringify(count)}`);
  return value;
}

/** The parts of `POST /v3/maintenance/status` read here; ids are decimal strings. */
export interface EtcdStatus {
  readonly header?: { readonly member_id?: string };
  readonly leader?: string;
}

/** The position of the member every answering member names as leader; undefined while any of them answers
 * nothing, names no leader or names another one, or the named leader is not among them. */
export function agreedLeader(statuses: readonly (EtcdStatus | undefined)[]): number | undefined {
  const leaders = new Set(statuses.map((status) => status?.leader));
  if (leaders.size !== 1) return undefined;
  const [leader] = leaders;
  if (leader === undefined || leader === '0') return undefined;
  const position = statuses.findIndex((status) => status?.header?.member_id === leader);
  return position === -1 ? undefined : position;
}
