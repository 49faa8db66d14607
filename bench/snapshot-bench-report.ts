// The snapshot benchmark's figures and its section of bench/RESULTS.md: per round, a steady write load without
// snapshots and the same load while snapshots are taken back to back through `POST /database/snapshot`; each
// snapshot's wall time and file size, the writes' p50/p99/max and errors, elections meanwhile, and
// p99(with)/p99(without). Pure: the run in, text out.
import type { RequestSample } from './paced-requests.ts';
import { percentile, replaceSection } from './raft-bench-report.ts';

export type SnapshotLoad = 'without' | 'with';

export interface RequestFigures {
  readonly sent: number;
  readonly ok: number;
  readonly failed: number;
  /** What went wrong, the commonest first (at most four kinds), each with how many writes it failed. */
  readonly failureKinds: readonly { readonly text: string; readonly count: number }[];
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
  /** The controller that took the writes and the snapshots: the leader when the measurement began. */
  readonly controller: string;
  /** How much the raft term rose over the measurement: elections (the leader unheard for an election timeout). */
  readonly termRise: number;
  readonly seconds: number;
  readonly writes: RequestFigures;
  /** The read probe's figures: `GET /edge/client/v1/version`, answered from memory, so its latency is how long the
   * controller's thread kept it waiting. */
  readonly reads: RequestFigures;
  /** Empty without snapshots. */
  readonly snapshots: readonly SnapshotTaken[];
  readonly snapshotFailures: readonly string[];
  /** CPU seconds (user + system, all threads) the controller used; undefined without /proc. */
  readonly cpuSeconds?: number;
  /** Noise: the machine's 1-minute load average when the measurement began, and the longest the benchmark's own
   * event loop was late (the machine did not run it either: what the controller's figures suffered too). */
  readonly loadAverage: number;
  readonly benchStallMs: number;
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
  /** 1, or a three-member cluster whose leader takes the writes and the snapshots. */
  readonly controllers: number;
  readonly identities: { readonly count: number; readonly seconds: number; readonly connections: number };
  readonly writeRate: number;
  /** Read probes a second. */
  readonly readRate: number;
  /** Seconds between the answer to one snapshot and the next request (0: back to back). */
  readonly gapSeconds: number;
  /** The writes' pool: each write changes one of this many identities. */
  readonly writeTargets: number;
  /** Pause before each measurement. */
  readonly settleSeconds: number;
  readonly rounds: readonly SnapshotRound[];
}

/** Latency percentiles of the requests answered as hoped; every failure counted by what went wrong. */
export function requestFigures(samples: readonly RequestSample[]): RequestFigures {
  const accepted = samples.filter((sample) => sample.ok).map((sample) => sample.ms).sort((a, b) => a - b);
  const failures = new Map<string, number>();
  for (const sample of samples) {
    if (sample.ok) continue;
    const text = sample.error ?? 'failed';
    failures.set(text, (failures.get(text) ?? 0) + 1);
  }
  return {
    sent: samples.length,
    ok: accepted.length,
    failed: samples.length - accepted.length,
    failureKinds: [...failures].map(([text, count]) => ({ text, count })).sort((a, b) => b.count - a.count).slice(0, 4),
    p50Ms: percentile(accepted, 0.5),
    p99Ms: percentile(accepted, 0.99),
    maxMs: accepted.at(-1) ?? 0,
  };
}

/** p99(with) / p99(without) of one round. */
export const roundRatio = (round: SnapshotRound) => round.with.writes.p99Ms / Math.max(1e-9, round.without.writes.p99Ms);

/** p50(with) / p50(without) of one round: steadier than the p99 on a machine shared with other work. */
export const roundMedianRatio = (round: SnapshotRound) => round.with.writes.p50Ms / Math.max(1e-9, round.without.writes.p50Ms);

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const mib = (bytes: number) => `${fixed(bytes / (1024 * 1024), 1)} MiB`;
const cpuShare = (measurement: SnapshotMeasurement) => (measurement.cpuSeconds === undefined ? 'n/a' : `${fixed((100 * measurement.cpuSeconds) / measurement.seconds, 0)}%`);
/** Each distinct text with how often it occurs, in order of first occurrence. */
function counted(texts: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
  return [...counts];
}
const loadName = (load: SnapshotLoad) => (load === 'with' ? 'with snapshots' : 'without');
const inOrder = (round: SnapshotRound) => (round.first === 'without' ? [round.without, round.with] : [round.with, round.without]);

function row(round: SnapshotRound, measurement: SnapshotMeasurement): string {
  const { writes, snapshots } = measurement;
  const walls = snapshots.map((snapshot) => snapshot.wallMs);
  const wallCells = walls.length === 0 ? '– | –' : `${fixed(median(walls), 0)} | ${fixed(Math.max(...walls), 0)}`;
  const size = snapshots.length === 0 ? '–' : mib(median(snapshots.map((snapshot) => snapshot.sizeBytes)));
  const failed = measurement.snapshotFailures.length > 0 ? ` (+${measurement.snapshotFailures.length} failed)` : '';
  const { reads } = measurement;
  return `| ${round.round} | ${loadName(measurement.load)} | ${measurement.controller} | ${measurement.termRise} | ${writes.ok}/${writes.sent} | ${writes.failed} | ${fixed(writes.p50Ms, 1)} | ${fixed(writes.p99Ms, 1)} | ${fixed(writes.maxMs, 1)} | ${fixed(reads.p99Ms, 1)} | ${fixed(reads.maxMs, 1)} | ${snapshots.length}${failed} | ${wallCells} | ${size} | ${cpuShare(measurement)} | ${fixed(measurement.loadAverage, 1)} | ${fixed(measurement.benchStallMs, 0)} |`;
}

function setupLines(run: SnapshotRun): string[] {
  const single = run.controllers === 1;
  const who = single ? 'the controller' : 'the leader';
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${fixed(run.machine.loadAverage, 2)} at start, ${fixed(run.machine.loadAverageAtEnd, 2)} at the end.`,
    `${single ? 'One controller (a cluster of one voter)' : `A ${run.controllers}-controller cluster`} on loopback (TLS, raft defaults), loaded with ${run.identities.count.toLocaleString('en-US')} identities through ${who}'s management API (wrk, ${run.identities.connections} connections, \`POST /identities\`): ${fixed(run.identities.seconds, 0)} s, **${fixed(run.identities.count / run.identities.seconds, 0)} identities/s**.`,
    `Write load: ${run.writeRate} writes/s offered through ${who} (\`PATCH /identities/<id>\`, a new tag on one of ${run.writeTargets} identities in turn), open loop (each sent on time whether or not earlier ones were answered), each timed.`,
    `Read probe: ${run.readRate} \`GET /edge/client/v1/version\`/s to the same controller, open loop: answered from memory, its latency is how long the controller's thread kept a request waiting.`,
    `With snapshots: the same load while \`POST /edge/management/v1/database/snapshot\` (admin) is sent to ${who} ${run.gapSeconds === 0 ? 'again as soon as the last one was answered' : `${run.gapSeconds} s after the last one was answered`}; each file's size is a stat of the path answered, then the file is removed. Without and with take turns (the first alternates by round).`,
    `Controller: the one that took the writes and the snapshots, ${who} when the measurement began (looked up again before each, after a ${run.settleSeconds} s pause). Term rise: how much the raft term rose over the measurement; each rise is an election.`,
    "CPU: user + system time of that controller's process (all threads) over the measurement, as a share of one CPU.",
    "Noise, per measurement: the machine's 1-minute load average when it began, and the bench's stall: the longest the benchmark's own event loop was late (the machine ran neither it nor, likely, the controllers then).",
  ];
}

export function snapshotSummary(run: SnapshotRun): string {
  const snapshots = run.rounds.flatMap((round) => round.with.snapshots);
  const walls = snapshots.map((snapshot) => snapshot.wallMs);
  const servers = snapshots.flatMap((snapshot) => (snapshot.serverMs === undefined ? [] : [snapshot.serverMs]));
  const sizes = snapshots.map((snapshot) => snapshot.sizeBytes);
  const lines = [
    ...setupLines(run),
    '',
    '| Round | Load | Controller | Term rise | Writes ok/sent | Failed | Write p50 (ms) | Write p99 (ms) | Write max (ms) | Read p99 (ms) | Read max (ms) | Snapshots | Snapshot wall, median (ms) | Snapshot wall, max (ms) | Snapshot size (median) | Controller CPU | Load avg | Bench stall (ms) |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...run.rounds.flatMap((round) => inOrder(round).map((measurement) => row(round, measurement))),
    '',
  ];
  for (const round of run.rounds) {
    const each = round.with.snapshots.map((snapshot) => fixed(snapshot.wallMs, 0));
    lines.push(`Round ${round.round}, each snapshot's wall time (ms): ${each.length === 0 ? 'none' : each.join(', ')}.`);
  }
  lines.push('');
  const medianOf = (pick: (round: SnapshotRound) => number) => median(run.rounds.map(pick));
  lines.push(`By round, p99(with)/p99(without): ${run.rounds.map((round) => `round ${round.round}: ${fixed(roundRatio(round), 2)}`).join(', ')}; median **${fixed(medianOf(roundRatio), 2)}**.`);
  lines.push(`By round, p50(with)/p50(without): ${run.rounds.map((round) => `round ${round.round}: ${fixed(roundMedianRatio(round), 2)}`).join(', ')}; median **${fixed(medianOf(roundMedianRatio), 2)}**.`);
  lines.push(`Write p99 (median over the rounds): without ${fixed(medianOf((round) => round.without.writes.p99Ms), 1)} ms, with snapshots ${fixed(medianOf((round) => round.with.writes.p99Ms), 1)} ms; write max (median): without ${fixed(medianOf((round) => round.without.writes.maxMs), 1)} ms, with ${fixed(medianOf((round) => round.with.writes.maxMs), 1)} ms.`);
  lines.push(`Read probe max (median over the rounds): without ${fixed(medianOf((round) => round.without.reads.maxMs), 1)} ms, with snapshots ${fixed(medianOf((round) => round.with.reads.maxMs), 1)} ms.`);
  if (snapshots.length > 0) {
    const server = servers.length > 0 ? `; as the controller timed them (\`durationMs\`): median ${fixed(median(servers), 0)} ms, max ${fixed(Math.max(...servers), 0)} ms` : '';
    lines.push(`Snapshots: ${snapshots.length}, wall time median **${fixed(median(walls), 0)} ms**, min ${fixed(Math.min(...walls), 0)} ms, max ${fixed(Math.max(...walls), 0)} ms${server}; size median **${mib(median(sizes))}** (${median(sizes)} bytes, ${fixed(median(sizes) / run.identities.count, 0)} bytes per identity).`);
  } else {
    lines.push('Snapshots: none was written.');
  }
  const measurements = run.rounds.flatMap(inOrder);
  const rises = (load: SnapshotLoad) => measurements.filter((measurement) => measurement.load === load).reduce((sum, measurement) => sum + measurement.termRise, 0);
  lines.push(`Raft term rises (elections): ${rises('with')} while snapshots were taken, ${rises('without')} without.`);
  for (const round of run.rounds) {
    for (const measurement of inOrder(round)) {
      const kinds = [
        ...measurement.writes.failureKinds.map((kind) => `${kind.count} × ${kind.text}`),
        ...measurement.reads.failureKinds.map((kind) => `${kind.count} × read probe: ${kind.text}`),
        ...counted(measurement.snapshotFailures).map(([text, count]) => `${count} × snapshot: ${text}`),
      ];
      if (kinds.length > 0) lines.push(`Failures, round ${round.round} ${loadName(measurement.load)}: ${kinds.join('; ')}.`);
    }
  }
  return lines.join('\n');
}

export const snapshotSectionHeading = '## Snapshots: time and size at 100k identities, write p99 while one is taken';

export function renderSnapshotSection(previous: string | undefined, run: SnapshotRun, notes: string): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'snapshot', snapshotSectionHeading, `${snapshotSummary(run)}\n\n${notes}`);
}
