// Raft throughput and commit latency: three in-process nodes with the write-ahead log storage in temp dirs, at 1, 16 and 256
// concurrent proposers, against a baseline in the same run: the same proposals written straight to one LevelDB
// with sync and no replication. Figures go to a marked section of bench/RESULTS.md, which the HTTP benchmark keeps.
// Env: BENCH_RAFT_SECONDS (seconds per measurement, default 5). Bounded by a watchdog: past its budget the run
// stops, removes its temp folder and exits non-zero. Everything runs in this one process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { silentLogger } from '../common/log/logger.ts';
import { RaftNode, type RaftStateMachine } from '../server/raft/node/raft-node.ts';
import { InProcessTransport } from '../server/raft/node/raft-transport.ts';
import { FileSnapshotStore } from '../server/raft/storage/file-snapshot-store.ts';
import { WalRaftStore } from '../server/raft/storage/wal-raft-store.ts';
import type { ApplyResult, CommittedEntry } from '../server/raft/state-machine.ts';
import { percentile, replaceSection } from './raft-bench-report.ts';
import { positiveInteger } from './bench-env.ts';

const seconds = positiveInteger('BENCH_RAFT_SECONDS', 5);
const concurrencies = [1, 16, 256];
const payload = { type: 'set', key: '', value: 'x'.repeat(200) };

class CountingMachine implements RaftStateMachine {
  applied = 0;
  appliedIndex(): number {
    return this.applied;
  }
  async apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]> {
    this.applied = entries[entries.length - 1]?.index ?? this.applied;
    return entries.map(() => ({ ok: true }));
  }
  snapshot(): unknown {
    return { applied: this.applied };
  }
  async restore(_data: unknown, index: number): Promise<void> {
    this.applied = index;
  }
}

interface Measurement {
  readonly concurrency: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly count: number;
}

/** Runs `concurrency` loops of `work` for `seconds`, timing each call. */
async function measure(concurrency: number, work: (n: number) => Promise<unknown>): Promise<Measurement> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let sequence = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const begin = performance.now();
        await work(sequence++);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { concurrency, perSecond: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), count: latencies.length };
}

async function baseline(root: string, concurrency: number): Promise<Measurement> {
  const db = new Level<string, unknown>(join(root, `baseline-${concurrency}`), { valueEncoding: 'json' });
  await db.open();
  try {
    return await measure(concurrency, (n) => db.put(`k${n.toString().padStart(12, '0')}`, { ...payload, key: `k${n}` }, { sync: true }));
  } finally {
    await db.close();
  }
}

async function threeNodes(root: string, concurrency: number): Promise<Measurement> {
  const transport = new InProcessTransport();
  const ids = ['a', 'b', 'c'];
  const opened: Array<{ node: RaftNode; store: WalRaftStore; snapshots: FileSnapshotStore }> = [];
  for (const [i, id] of ids.entries()) {
    const dir = join(root, `raft-${concurrency}`, id);
    const store = await WalRaftStore.open(join(dir, 'raft.db'));
    const snapshots = await FileSnapshotStore.open(join(dir, 'snapshots'));
    const node = await RaftNode.start({
      id, store, snapshots, stateMachine: new CountingMachine(), transport,
      timing: { tickMs: 50, electionTicks: 20, heartbeatTicks: 4, commitTimeoutMs: 30_000 },
      snapshotPolicy: { intervalMs: 120_000, threshold: 500, trailingLogs: 500 },
      bootstrap: { voters: ids, nonVoters: [] },
      random: () => (i + 1) / 7,
      logger: silentLogger,
    });
    opened.push({ node, store, snapshots });
  }
  // A new log zero-fills its first segments in the background; measure raft, not that start-up work.
  await Promise.all(opened.map((member) => member.store.spareReady()));
  try {
    const deadline = Date.now() + 10_000;
    let leader: RaftNode | undefined;
    while (!(leader = opened.find((member) => member.node.isLeader())?.node)) {
      if (Date.now() > deadline) throw new Error('no leader elected');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const proposer = leader;
    return await measure(concurrency, (n) => proposer.propose({ ...payload, key: `k${n}` } as { type: string }));
  } finally {
    for (const member of opened) await member.node.close();
    for (const member of opened) {
      await member.store.close();
      await member.snapshots.close();
    }
  }
}

async function main(root: string): Promise<void> {
  const rows: Array<{ concurrency: number; raft: Measurement; direct: Measurement }> = [];
  try {
    for (const concurrency of concurrencies) {
      const direct = await baseline(root, concurrency);
      const raft = await threeNodes(root, concurrency);
      rows.push({ concurrency, raft, direct });
      console.log(`c=${concurrency}: raft ${raft.perSecond.toFixed(0)}/s p50 ${raft.p50.toFixed(2)} ms p99 ${raft.p99.toFixed(2)} ms; direct LevelDB ${direct.perSecond.toFixed(0)}/s p50 ${direct.p50.toFixed(2)} ms p99 ${direct.p99.toFixed(2)} ms; ratio ${(raft.perSecond / direct.perSecond).toFixed(2)}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const table = [
    `Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}; ${cpus().length} CPUs, Node ${process.version}; ${seconds} s per measurement; 200-byte commands.`,
    'Raft: three RaftNodes in one process (in-process transport), each with its write-ahead log (O_DSYNC) in a temp dir; a proposal',
    'counts when the leader has applied it. Baseline: the same commands written straight to one LevelDB with `sync: true`, no replication.',
    '',
    '| Concurrent proposers | Raft proposals/s | Raft p50 (ms) | Raft p99 (ms) | LevelDB sync writes/s | LevelDB p50 (ms) | LevelDB p99 (ms) | Raft / LevelDB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ concurrency, raft, direct }) =>
      `| ${concurrency} | ${raft.perSecond.toFixed(0)} | ${raft.p50.toFixed(2)} | ${raft.p99.toFixed(2)} | ${direct.perSecond.toFixed(0)} | ${direct.p50.toFixed(2)} | ${direct.p99.toFixed(2)} | ${(raft.perSecond / direct.perSecond).toFixed(2)} |`,
    ),
  ].join('\n');
  const file = new URL('./RESULTS.md', import.meta.url);
  let previous = '';
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    previous = '# Benchmark results\n';
  }
  writeFileSync(file, replaceSection(previous, 'raft', '## Raft: three nodes with write-ahead log storage', table));
  console.log('wrote bench/RESULTS.md (raft section)');
}

const root = mkdtempSync(join(tmpdir(), 'edgeward-raft-bench-'));
// Two measurements per concurrency, plus leader elections, draining the 256 proposers' last calls and closing.
const budgetMs = (2 * concurrencies.length * seconds + 90) * 1000;
const stop = (reason: string, code: number) => {
  console.error(`raft-bench: ${reason}`);
  rmSync(root, { recursive: true, force: true });
  process.exit(code);
};
setTimeout(() => stop(`ran past its ${budgetMs / 1000} s budget; stopping`, 1), budgetMs).unref();
process.once('SIGINT', () => stop('interrupted', 130));
process.once('SIGTERM', () => stop('terminated', 143));
try {
  await main(root);
  process.exit(0);
} catch (error) {
  stop(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}
