// The snapshot benchmark's figures and its section of bench/RESULTS.md: per round, a steady write load without
// snapshots and the same load while snapshots are taken back to back through `POST /database/snapshot`; each
// snapshot's wall time and file size, the writes' p50/p99/max and errors, and p99(with)/p99(without). Pure: the run
// in, text out.
import type { WriteSample } from './paced-writes.ts';
import { percentile, replaceSection } from './raft-bench-report.ts';

export type SnapshotLoad = 'without' | 'with';

export interface WriteFigures {
  readonly sent: number;
  readonly ok: number;
  readonly failed: number;
  /** The first few failures' text, to say what went wrong. */
  readonly failureSamples: readonly string[];
  /** Of the accepted writes. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface SnapshotTaken {
  /** From sending `POST /database/snapshot` to its answer, as the client saw it. */
  readonly wallMs: number;
  /** The controller's own `durationMs`, when its answer carries one. */
  readonly serverMs?: number;
  /** The file's size on disk (stat of the answered path). */
  readonly sizeBytes: number;
  /** The raft index it holds. */
  readonly index: number;
}

export interface SnapshotMeasurement {
  readonly load: SnapshotLoad;
  readonly seconds: number;
  readonly writes: WriteFigures;
  /** Empty without snapshots. */
  readonly snapshots: readonly SnapshotTaken[];
  readonly snapshotFailures: readonly string[];
  /** CPU seconds (user + system, all threads) the snapshotting controller used; undefined without /proc. */
  readonly cpuSeconds?: number;
}

export interface SnapshotRound {
  readonly round: number;
  readonly first: SnapshotLoad;
  readonly without: SnapshotMeasurement;
  readonly with: SnapshotMeasurement;
}

export interface SnapshotRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number; readonly loadAverageAtEnd: number };
  /** How many controllers ran (1, or a three-member cluster), and which one took the writes and the snapshots. */
  readonly controllers: number;
  readonly snapshotController: string;
  readonly identities: { readonly count: number; readonly seconds: number; readonly connections: number };
  readonly writeRate: number;
  /** The writes' pool: each write changes one of this many identities. */
  readonly writeTargets: number;
  readonly rounds: readonly SnapshotRound[];
}

/** Latency percentiles of the accepted writes; every failure counted, the first three kept. */
export function writeFigures(samples: readonly WriteSample[]): WriteFigures {
  const accepted = samples.filter((sample) => sample.ok).map((sample) => sample.ms).sort((a, b) => a - b);
  const failures = samples.filter((sample) => !sample.ok);
  return {
    sent: samples.length,
    ok: accepted.length,
    failed: failures.length,
    failureSamples: [...new Set(failures.map((sample) => sample.error ?? 'failed'))].slice(0, 3),
    p50Ms: percentile(accepted, 0.5),
    p99Ms: percentile(accepted, 0.99),
    maxMs: accepted.at(-1) ?? 0,
  };
}

/** p99(with) / p99(without) of one round. */
export const roundRatio = (round: SnapshotRound) => round.with.writes.p99Ms / Math.max(1e-9, round.without.writes.p99Ms);

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

const allSnapshots = (run: SnapshotRun) => run.rounds.flatMap((round) => round.with.snapshots);
const fixed = (value: number, digits: number) => value.toFixed(digits);
const mib = (bytes: number) => `${fixed(bytes / (1024 * 1024), 1)} MiB`;
const cpuShare = (measurement: SnapshotMeasurement) => (measurement.cpuSeconds === undefined ? 'n/a' : `${fixed((100 * measurement.cpuSeconds) / measurement.seconds, 0)}%`);

function row(round: SnapshotRound, measurement: SnapshotMeasurement): string {
  const { writes, snapshots } = measurement;
  const walls = snapshots.map((snapshot) => snapshot.wallMs);
  const wallCells = walls.length === 0 ? '– | –' : `${fixed(median(walls), 0)} | ${fixed(Math.max(...walls), 0)}`;
  const size = snapshots.length === 0 ? '–' : mib(median(snapshots.map((snapshot) => snapshot.sizeBytes)));
  const failed = measurement.snapshotFailures.length > 0 ? ` (+${measurement.snapshotFailures.length} failed)` : '';
  const what = measurement.load === 'with' ? 'with snapshots' : 'without';
  return `| ${round.round} | ${what} | ${writes.ok}/${writes.sent} | ${writes.failed} | ${fixed(writes.p50Ms, 1)} | ${fixed(writes.p99Ms, 1)} | ${fixed(writes.maxMs, 1)} | ${snapshots.length}${failed} | ${wallCells} | ${size} | ${cpuShare(measurement)} |`;
}

export function snapshotSummary(run: SnapshotRun): string {
  const snapshots = allSnapshots(run);
  const walls = snapshots.map((snapshot) => snapshot.wallMs);
  const servers = snapshots.flatMap((snapshot) => (snapshot.serverMs === undefined ? [] : [snapshot.serverMs]));
  const sizes = snapshots.map((snapshot) => snapshot.sizeBytes);
  const cluster = run.controllers === 1 ? 'One controller' : `A ${run.controllers}-controller cluster`;
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${fixed(run.machine.loadAverage, 2)} at start, ${fixed(run.machine.loadAverageAtEnd, 2)} at the end.`,
    `${cluster} on loopback (TLS, raft defaults), loaded with ${run.identities.count.toLocaleString('en-US')} identities through ${run.snapshotController}'s management API (wrk, ${run.identities.connections} connections, \`POST /identities\`): ${fixed(run.identities.seconds, 0)} s, **${fixed(run.identities.count / run.identities.seconds, 0)} identities/s**.`,
    `Write load: ${run.writeRate} writes/s offered through ${run.snapshotController} (\`PATCH /identities/<id>\`, a new tag on one of ${run.writeTargets} identities in turn), open loop (each sent on time whether or not earlier ones were answered), each timed.`,
    `"with snapshots": the same load while \`POST /edge/management/v1/database/snapshot\` (admin) is sent to ${run.snapshotController} again as soon as the last one was answered; each file's size is a stat of the path answered, then the file is removed. Without and with take turns (the first alternates by round).`,
    'CPU: user + system time of the snapshotting controller\'s process (all threads) over the measurement, as a share of one CPU.',
    '',
    '| Round | Load | Writes ok/sent | Failed | Write p50 (ms) | Write p99 (ms) | Write max (ms) | Snapshots | Snapshot wall, median (ms) | Snapshot wall, max (ms) | Snapshot size (median) | Controller CPU |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const round of run.rounds) {
    const order = round.first === 'without' ? [round.without, round.with] : [round.with, round.without];
    for (const measurement of order) lines.push(row(round, measurement));
  }
  lines.push('');
  for (const round of run.rounds) {
    const walls = round.with.snapshots.map((snapshot) => fixed(snapshot.wallMs, 0));
    lines.push(`Round ${round.round}, each snapshot's wall time (ms): ${walls.length === 0 ? 'none' : walls.join(', ')}.`);
  }
  lines.push('');
  lines.push(`By round, p99(with)/p99(without): ${run.rounds.map((round) => `round ${round.round}: ${fixed(roundRatio(round), 2)}`).join(', ')}; median **${fixed(median(run.rounds.map(roundRatio)), 2)}**.`);
  lines.push(`Write p99 (median over the rounds): without ${fixed(median(run.rounds.map((round) => round.without.writes.p99Ms)), 1)} ms, with snapshots ${fixed(median(run.rounds.map((round) => round.with.writes.p99Ms)), 1)} ms; write max (median): without ${fixed(median(run.rounds.map((round) => round.without.writes.maxMs)), 1)} ms, with ${fixed(median(run.rounds.map((round) => round.with.writes.maxMs)), 1)} ms.`);
  if (snapshots.length > 0) {
    const server = servers.length > 0 ? `; as the controller timed them (\`durationMs\`): median ${fixed(median(servers), 0)} ms, max ${fixed(Math.max(...servers), 0)} ms` : '';
    lines.push(`Snapshots: ${snapshots.length}, wall time median **${fixed(median(walls), 0)} ms**, min ${fixed(Math.min(...walls), 0)} ms, max ${fixed(Math.max(...walls), 0)} ms${server}; size median **${mib(median(sizes))}** (${median(sizes)} bytes, ${fixed(median(sizes) / run.identities.count, 0)} bytes per identity).`);
  } else {
    lines.push('Snapshots: none was written.');
  }
  const failures = run.rounds.flatMap((round) => [round.without, round.with]).flatMap((measurement) => [...measurement.writes.failureSamples.map((text) => `write (${measurement.load}): ${text}`), ...measurement.snapshotFailures.map((text) => `snapshot: ${text}`)]);
  if (failures.length > 0) lines.push(`Failures: ${[...new Set(failures)].slice(0, 6).join(' | ')}`);
  return lines.join('\n');
}

export const snapshotSectionHeading = '## Snapshots: time and size at 100k identities, write p99 while one is taken';

export function renderSnapshotSection(previous: string | undefined, run: SnapshotRun, notes: string): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'snapshot', snapshotSectionHeading, `${snapshotSummary(run)}\n\n${notes}`);
}
