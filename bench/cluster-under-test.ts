// What bench/cluster-vs-etcd.ts needs from each three-member cluster (edgeward's controllers, etcd's members), and
// the failover trial run the same way against both.
import type { FailoverTrial, System } from './cluster-bench-report.ts';

/** Where wrk sends its writes, and how bench/wrk/unique-writes.lua shapes them. */
export interface LoadTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly kind: 'identity' | 'etcd';
}

export interface ClusterUnderTest {
  readonly system: System;
  readonly memberNames: readonly string[];
  /** The leader's position, once every member agrees on it. */
  leader(timeoutMs: number): Promise<number>;
  loadTarget(leader: number): Promise<LoadTarget>;
  /** How many of the writes named `<prefix>-…` the member holds. */
  storedCount(member: number, prefix: string): Promise<number>;
  /** Readies writes through `members` (sessions, open sockets) and checks that one goes through each. */
  prepareWrites(members: readonly number[]): Promise<void>;
  /** One fresh write through `member`: true when it succeeded. */
  write(member: number, name: string): Promise<boolean>;
  /** Aborts writes still in flight. */
  endWrites(): void;
  /** Each member's process id while it runs (for its CPU time), in member order. */
  pids(): readonly (number | undefined)[];
  /** SIGKILL. */
  kill(member: number): void;
  /** Starts a killed member again on its data. */
  restart(member: number): Promise<void>;
  /** Every member up, agreeing on one leader (twice, half a second apart), and taking a write through each. */
  waitHealthy(timeoutMs: number): Promise<void>;
  /** Stops every member (SIGTERM, then SIGKILL) and removes its files. */
  stop(): Promise<void>;
}

/** Kills the leader and times the first successful write through a survivor: a fresh write through each survivor
 * at once and then every `pollMs`, none waiting for an earlier one, so a write stuck on the dead leader delays
 * nothing. Infinity when none succeeds within `limitMs`. The killed member stays down; the caller restarts it. */
export async function timeFailover(cluster: ClusterUnderTest, label: string, pollMs: number, limitMs: number): Promise<FailoverTrial & { killedMember: number }> {
  const leader = await cluster.leader(60_000);
  const survivors = cluster.memberNames.map((_, member) => member).filter((member) => member !== leader);
  await cluster.prepareWrites(survivors);
  let interval: NodeJS.Timeout | undefined;
  let limit: NodeJS.Timeout | undefined;
  const killedAt = performance.now();
  cluster.kill(leader);
  try {
    const first = await new Promise<{ ms: number; via: string } | undefined>((resolve) => {
      let sequence = 0;
      const fire = () => {
        for (const member of survivors) {
          cluster.write(member, `${label}-${sequence++}`).then(
            (ok) => ok && resolve({ ms: performance.now() - killedAt, via: cluster.memberNames[member]! }),
            () => undefined,
          );
        }
      };
      interval = setInterval(fire, pollMs);
      limit = setTimeout(() => resolve(undefined), limitMs);
      fire();
    });
    const killed = cluster.memberNames[leader]!;
    return first ? { system: cluster.system, killed, ms: first.ms, via: first.via, killedMember: leader } : { system: cluster.system, killed, ms: Number.POSITIVE_INFINITY, killedMember: leader };
  } finally {
    clearInterval(interval);
    clearTimeout(limit);
    cluster.endWrites();
  }
}
