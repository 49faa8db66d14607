// Pure helpers for bench/overlay-bench.ts: every round's throughput and latency figures per path in, the text of
// the marked RESULTS.md section out (medians over the rounds, every round, and the ratios the issue asks for:
// overlay over direct loopback and over socat, at 1 and 16 connections; added latency as p50 differences; the SDK
// paths against socat and the router overlay, and the encrypted SDK path's CPU per MB against the plain one's).
import { replaceSection } from './raft-bench-report.ts';

/** The paths measured, in the order the tables show them. */
export const pathNames = ['direct', 'socat', 'overlay', 'overlay-chain', 'sdk', 'sdk-encrypted'] as const;
export type PathName = (typeof pathNames)[number];

export interface PathDescription {
  readonly name: PathName;
  /** As shown in the tables. */
  readonly label: string;
}

/** One throughput measurement: one path, one connection count, one round. */
export interface ThroughputSample {
  readonly round: number;
  readonly path: PathName;
  readonly connections: number;
  /** Bytes the upstream sink received over the measured seconds, per second, in MB (10^6 bytes). */
  readonly mbPerSecond: number;
  /** CPU (user + system, all threads; socat's forked children included) per MB the sink received, over the
   * connections' whole life (warm-up and drain included), by process: `r1`, `r2`, `r3`, `socat`, `tunnel` (`edgeward
   * tunnel run`), `client`, `sink`. */
  readonly cpuMsPerMb: Readonly<Record<string, number>>;
}

/** One latency measurement: round trips of a small message on established connections. */
export interface LatencySample {
  readonly round: number;
  readonly path: PathName;
  readonly connections: number;
  /** Round trips timed (after the warm-up), over every connection. */
  readonly count: number;
  readonly p50Us: number;
  readonly p99Us: number;
}

export interface OverlayBenchRun {
  /** ISO 8601, UTC, when the run started. */
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly socatVersion: string;
  readonly rounds: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
  readonly latencyWarmupSeconds: number;
  readonly latencySeconds: number;
  readonly messageBytes: number;
  readonly writeBytes: number;
  readonly connectionCounts: readonly number[];
  readonly paths: readonly PathDescription[];
  /** The order the paths were measured in, per round. */
  readonly orders: readonly (readonly PathName[])[];
  readonly throughput: readonly ThroughputSample[];
  readonly latency: readonly LatencySample[];
  /** Seconds from the start to the first measurement (controller, routers, socat, circuits checked, a warm-up pass
   * over every path). */
  readonly setupSeconds: number;
  /** Seconds the measurements took. */
  readonly measureSeconds: number;
}

/** Forwarding processes per path, whose CPU the "forwarder" column sums. */
export const forwarderProcesses: Readonly<Record<PathName, readonly string[]>> = {
  direct: [],
  socat: ['socat'],
  overlay: ['r1', 'r2'],
  'overlay-chain': ['r1', 'r2', 'r3'],
  sdk: ['tunnel', 'r1', 'r2'],
  'sdk-encrypted': ['tunnel', 'r1', 'r2'],
};

/** The issue's bound on end-to-end encryption's cost: the encrypted SDK path's forwarder CPU per MB (tunnel + r1 +
 * r2) at most this many times the plain SDK path's. */
export const encryptedCpuTarget = 1.5;

/** The encrypted SDK path's forwarder CPU per MB over the plain one's: the ratio of the medians, and within each round. */
export function encryptionCpuRatio(run: OverlayBenchRun, connections: number): { median: number; rounds: number[]; encrypted: number; plain: number } | undefined {
  const encrypted = throughputRow(run, 'sdk-encrypted', connections);
  const plain = throughputRow(run, 'sdk', connections);
  if (encrypted?.forwarderCpu === undefined || plain?.forwarderCpu === undefined) return undefined;
  const forwarderCpu = (sample: ThroughputSample) => sum(forwarderProcesses[sample.path].map((name) => sample.cpuMsPerMb[name] ?? Number.NaN));
  const plainSamples = pick(run.throughput, 'sdk', connections);
  const rounds = pick(run.throughput, 'sdk-encrypted', connections).flatMap((sample) => {
    const other = plainSamples.find((candidate) => candidate.round === sample.round);
    return other ? [forwarderCpu(sample) / forwarderCpu(other)] : [];
  });
  return { median: encrypted.forwarderCpu / plain.forwarderCpu, rounds, encrypted: encrypted.forwarderCpu, plain: plain.forwarderCpu };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const byRound = <T extends { readonly round: number }>(samples: readonly T[]) => [...samples].sort((a, b) => a.round - b.round);
const pick = <T extends { readonly path: PathName; readonly connections: number; readonly round: number }>(samples: readonly T[], path: PathName, connections: number) =>
  byRound(samples.filter((sample) => sample.path === path && sample.connections === connections));

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
/** MB/s: whole numbers from 100 up, one decimal below. */
const mbps = (value: number) => fixed(value, value >= 100 ? 0 : 1);
const us = (value: number) => fixed(value, 0);
const cpu = (value: number) => fixed(value, value >= 10 ? 1 : 2);
const signedUs = (value: number) => (Number.isFinite(value) ? `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(0)}` : '–');

export interface ThroughputRow {
  readonly path: PathName;
  readonly connections: number;
  readonly medianMbPerSecond: number;
  readonly rounds: readonly number[];
  /** Medians over the rounds, ms per MB. */
  readonly forwarderCpu: number | undefined;
  readonly loadCpu: number;
  readonly byProcess: Readonly<Record<string, number>>;
}

export function throughputRow(run: OverlayBenchRun, path: PathName, connections: number): ThroughputRow | undefined {
  const samples = pick(run.throughput, path, connections);
  if (samples.length === 0) return undefined;
  const forwarders = forwarderProcesses[path];
  const processes = [...new Set(samples.flatMap((sample) => Object.keys(sample.cpuMsPerMb)))];
  const byProcess = Object.fromEntries(processes.map((name) => [name, median(samples.map((sample) => sample.cpuMsPerMb[name] ?? Number.NaN))]));
  return {
    path,
    connections,
    medianMbPerSecond: median(samples.map((sample) => sample.mbPerSecond)),
    rounds: samples.map((sample) => sample.mbPerSecond),
    forwarderCpu: forwarders.length === 0 ? undefined : median(samples.map((sample) => sum(forwarders.map((name) => sample.cpuMsPerMb[name] ?? Number.NaN)))),
    loadCpu: median(samples.map((sample) => (sample.cpuMsPerMb.client ?? Number.NaN) + (sample.cpuMsPerMb.sink ?? Number.NaN))),
    byProcess,
  };
}

export interface LatencyRow {
  readonly path: PathName;
  readonly connections: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly p50Rounds: readonly number[];
  readonly p99Rounds: readonly number[];
  readonly count: number;
}

export function latencyRow(run: OverlayBenchRun, path: PathName, connections: number): LatencyRow | undefined {
  const samples = pick(run.latency, path, connections);
  if (samples.length === 0) return undefined;
  return {
    path,
    connections,
    p50Us: median(samples.map((sample) => sample.p50Us)),
    p99Us: median(samples.map((sample) => sample.p99Us)),
    p50Rounds: samples.map((sample) => sample.p50Us),
    p99Rounds: samples.map((sample) => sample.p99Us),
    count: sum(samples.map((sample) => sample.count)),
  };
}

/** `path` over `baseline` throughput: the ratio of the medians, and the ratio within each round (both measured). */
export function throughputRatio(run: OverlayBenchRun, path: PathName, baseline: PathName, connections: number): { median: number; rounds: number[] } | undefined {
  const over = pick(run.throughput, path, connections);
  const under = pick(run.throughput, baseline, connections);
  if (over.length === 0 || under.length === 0) return undefined;
  const rounds = over.flatMap((sample) => {
    const other = under.find((candidate) => candidate.round === sample.round);
    return other ? [sample.mbPerSecond / other.mbPerSecond] : [];
  });
  return { median: median(over.map((s) => s.mbPerSecond)) / median(under.map((s) => s.mbPerSecond)), rounds };
}

/** Added latency of `path` over `baseline`: median p50 minus median p50 (and the same for p99), in µs. */
export function addedLatency(run: OverlayBenchRun, path: PathName, baseline: PathName, connections: number): { p50Us: number; p99Us: number; p50Rounds: number[] } | undefined {
  const over = latencyRow(run, path, connections);
  const under = latencyRow(run, baseline, connections);
  if (!over || !under) return undefined;
  const overSamples = pick(run.latency, path, connections);
  const underSamples = pick(run.latency, baseline, connections);
  const p50Rounds = overSamples.flatMap((sample) => {
    const other = underSamples.find((candidate) => candidate.round === sample.round);
    return other ? [sample.p50Us - other.p50Us] : [];
  });
  return { p50Us: over.p50Us - under.p50Us, p99Us: over.p99Us - under.p99Us, p50Rounds };
}

export const overlaySectionHeading = '## Overlay: throughput and added latency against direct loopback and socat';

const list = (values: readonly number[], format: (value: number) => string) => values.map(format).join(', ');

export function overlaySummary(run: OverlayBenchRun): string {
  const { machine } = run;
  const measured = pathNames.filter((path) => run.paths.some((description) => description.name === path));
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.os}, Node ${machine.node}, ${run.socatVersion}; load average ${machine.loadAverage.toFixed(2)} at start.`,
    'How measured: everything on this one machine, on loopback, unpinned. One upstream Node process on 127.0.0.1 runs a sink (counts the bytes it reads) and an echo server;',
    'one client Node process (the load) connects to it through each path in turn: ' +
      run.paths.map((description) => `**${description.name}**, ${description.label}`).join('; ') +
      '. One controller process (test/support/controller-fixture.ts) and the routers run as an operator runs them (`./edgeward router enroll`, `./edgeward router run`); links are TLS; every router stays up throughout.' +
      (measured.some((path) => path.startsWith('sdk'))
        ? " The SDK paths' tunneler is `./edgeward tunnel run` with an identity file written by `./edgeward edge enroll`; its services differ only in `encryptionRequired` (false for sdk, true for sdk-encrypted: the SDK and r2 seal and open every byte)."
        : ''),
    `Throughput: each connection writes ${run.writeBytes / 1024} KiB buffers as fast as its socket takes them; after a ${run.warmupSeconds} s warm-up, the sink's byte count over ${run.seconds} s (MB = 10^6 bytes).`,
    `Latency: on each established connection a ${run.messageBytes}-byte message goes up and is echoed back, the next sent once the whole echo is back, for ${run.latencySeconds} s after a ${run.latencyWarmupSeconds} s warm-up; p50 and p99 of every timed round trip of the measurement, in µs; the added latency is a path's p50 minus direct's.`,
    `CPU per MB: user + system time (all threads; socat's forked children once reaped) of the forwarding processes (socat; the routers; the tunneler and the routers for the SDK paths), and of the client and sink, from /proc over the connections' whole life (warm-up and drain included), per MB the sink received.`,
    `${run.rounds} round${run.rounds === 1 ? '' : 's'}; within a round each measurement (throughput at 1 and 16 connections, then latency at 1 and 16) is taken on every path back to back, the order of paths rotating from round to round (${run.orders.map((order) => order.join(' → ')).join('; ')}). Figures are medians over the rounds; ratios are of the medians.`,
    `Before round 1, a pass over every path (2 s of throughput and 1 s of round trips at 16 connections) warms the processes up and is not kept. The run took ${Math.round(run.setupSeconds)} s to set up and warm up, and ${Math.round(run.measureSeconds)} s to measure.`,
    '',
    '| Connections | Path | MB/s | MB/s by round | Forwarder CPU (ms/MB) | Client + sink CPU (ms/MB) |',
    '|---:|---|---:|---|---:|---:|',
  ];
  for (const connections of run.connectionCounts) {
    for (const path of measured) {
      const row = throughputRow(run, path, connections);
      if (!row) continue;
      lines.push(`| ${connections} | ${path} | ${mbps(row.medianMbPerSecond)} | ${list(row.rounds, mbps)} | ${row.forwarderCpu === undefined ? '–' : cpu(row.forwarderCpu)} | ${cpu(row.loadCpu)} |`);
    }
  }
  lines.push('', '| Connections | Path | p50 (µs) | p99 (µs) | Added p50 vs direct (µs) | p50 by round | p99 by round | Round trips |', '|---:|---|---:|---:|---:|---|---|---:|');
  for (const connections of run.connectionCounts) {
    for (const path of measured) {
      const row = latencyRow(run, path, connections);
      if (!row) continue;
      const added = path === 'direct' ? undefined : addedLatency(run, path, 'direct', connections);
      lines.push(`| ${connections} | ${path} | ${us(row.p50Us)} | ${us(row.p99Us)} | ${added ? signedUs(added.p50Us) : '–'} | ${list(row.p50Rounds, us)} | ${list(row.p99Rounds, us)} | ${row.count} |`);
    }
  }
  lines.push('');
  for (const path of measured.filter((name) => name !== 'direct' && name !== 'socat')) {
    for (const connections of run.connectionCounts) {
      const direct = throughputRatio(run, path, 'direct', connections);
      const socat = throughputRatio(run, path, 'socat', connections);
      if (!direct || !socat) continue;
      const overOverlay = path.startsWith('sdk') ? throughputRatio(run, path, 'overlay', connections) : undefined;
      lines.push(
        `Throughput ${path}/direct at ${connections} connection${connections === 1 ? '' : 's'}: **${direct.median.toFixed(2)}** (by round: ${list(direct.rounds, (v) => v.toFixed(2))}); ${path}/socat: **${socat.median.toFixed(2)}** (by round: ${list(socat.rounds, (v) => v.toFixed(2))})` +
          (overOverlay ? `; ${path}/overlay: **${overOverlay.median.toFixed(2)}** (by round: ${list(overOverlay.rounds, (v) => v.toFixed(2))}).` : '.'),
      );
    }
  }
  for (const connections of run.connectionCounts) {
    const parts = measured
      .filter((path) => path !== 'direct')
      .flatMap((path) => {
        const added = addedLatency(run, path, 'direct', connections);
        return added ? [`${path} **${signedUs(added.p50Us)} µs** p50 (${signedUs(added.p99Us)} µs p99; by round ${list(added.p50Rounds, signedUs)})`] : [];
      });
    const overSocat = addedLatency(run, 'overlay', 'socat', connections);
    if (parts.length > 0) {
      lines.push(`Added latency over direct at ${connections} connection${connections === 1 ? '' : 's'}: ${parts.join('; ')}${overSocat ? `; overlay over socat ${signedUs(overSocat.p50Us)} µs p50` : ''}.`);
    }
    const sdkOverOverlay = (['sdk', 'sdk-encrypted'] as const).flatMap((path) => {
      const added = addedLatency(run, path, 'overlay', connections);
      return added ? [`${path} **${signedUs(added.p50Us)} µs** p50 (${signedUs(added.p99Us)} µs p99; by round ${list(added.p50Rounds, signedUs)})`] : [];
    });
    if (sdkOverOverlay.length > 0) lines.push(`Added latency of the SDK paths over the router overlay at ${connections} connection${connections === 1 ? '' : 's'}: ${sdkOverOverlay.join('; ')}.`);
  }
  const encryption = run.connectionCounts.flatMap((connections) => {
    const ratio = encryptionCpuRatio(run, connections);
    return ratio
      ? [`at ${connections} connection${connections === 1 ? '' : 's'} **${ratio.median.toFixed(2)}x** (${cpu(ratio.encrypted)} over ${cpu(ratio.plain)} ms/MB; by round ${list(ratio.rounds, (v) => v.toFixed(2))}): ${ratio.median <= encryptedCpuTarget ? 'within' : 'over'} the ${encryptedCpuTarget}x target`]
      : [];
  });
  if (encryption.length > 0) lines.push(`End-to-end encryption's cost, forwarder CPU per MB (tunnel + r1 + r2) of sdk-encrypted over sdk: ${encryption.join('; ')}.`);
  const split = measured
    .filter((path) => path !== 'direct' && path !== 'socat')
    .flatMap((path) => {
      const connections = Math.max(...run.connectionCounts);
      const row = throughputRow(run, path, connections);
      if (!row) return [];
      const names = [...forwarderProcesses[path], 'client', 'sink'];
      return [`${path} at ${connections} connections: ${names.map((name) => `${name} ${cpu(row.byProcess[name] ?? Number.NaN)}`).join(', ')}`];
    });
  if (split.length > 0) lines.push(`CPU per MB by process (ms/MB, medians): ${split.join('; ')}.`);
  const totals = run.connectionCounts.flatMap((connections) => {
    const parts = measured.flatMap((path) => {
      const row = throughputRow(run, path, connections);
      if (!row) return [];
      const total = (row.forwarderCpu ?? 0) + row.loadCpu;
      return [`${path} ${cpu(total)} (≤ ${mbps((run.machine.cpus * 1000) / total)} MB/s)`];
    });
    return parts.length > 0 ? [`at ${connections} connection${connections === 1 ? '' : 's'}: ${parts.join(', ')}`] : [];
  });
  if (totals.length > 0) {
    lines.push(
      `CPU per MB of every process on the path (forwarders, client and sink; ms/MB, medians), and the throughput that would take all ${run.machine.cpus} CPUs: ${totals.join('; ')}. Where a path comes near that, it is bound by the machine's CPUs rather than by one process.`,
    );
  }
  return lines.join('\n');
}

export function renderOverlaySection(previous: string | undefined, run: OverlayBenchRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'overlay', overlaySectionHeading, overlaySummary(run));
}
