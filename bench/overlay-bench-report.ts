// Pure helpers for bench/overlay-bench.ts: every round's throughput, latency, fairness and new-connection figures per
// path in, the text of the marked RESULTS.md section out (medians over the rounds, every round, and the ratios the
// issues ask for: the overlay over direct loopback, socat and the stunnel pair, at 1 and 16 connections; added latency
// as p50 differences; the SDK paths against socat, the stunnel pair and the router overlay; the encrypted SDK path's
// CPU per MB against the plain one's; and issue 42's targets, each with its verdict and its by-round ratios).
import { replaceSection } from './raft-bench-report.ts';

/** The paths measured, in the order the tables show them. */
export const pathNames = ['direct', 'socat', 'stunnel-pair', 'overlay', 'overlay-chain', 'sdk', 'sdk-encrypted'] as const;
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
   * connections' whole life (warm-up and drain included), by process: `r1`, `r2`, `r3`, `socat`, `stunnel-a`,
   * `stunnel-b` (the stunnel pair's relays), `tunnel` (`edgeward tunnel run`), `client`, `sink`. */
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

/** One fairness measurement: `streams` connections on one path writing as fast as they can, counted at the sink. */
export interface FairnessSample {
  readonly round: number;
  readonly path: PathName;
  /** Seconds between the first and the last sample. */
  readonly seconds: number;
  /** Bytes each stream delivered to the sink over those seconds, in the order the sink accepted them. */
  readonly streamBytes: readonly number[];
  /** Per stream, the longest time (ms) between two samples with no byte for it while the other streams moved. */
  readonly longestStallMs: readonly number[];
}

/** One new-connection rate measurement (bench/connection-rate-load.ts): closed loops of connect, echo, close. */
export interface ConnectionRateSample {
  readonly round: number;
  readonly path: PathName;
  readonly completed: number;
  readonly failed: number;
  readonly perSecond: number;
  /** connect → whole echo, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU per completed connection (ms), by process: the path's forwarders and, for the overlay, `controller`. */
  readonly cpuMsPerConnection: Readonly<Record<string, number>>;
  readonly firstFailure?: string;
}

export interface OverlayBenchRun {
  /** ISO 8601, UTC, when the run started. */
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly socatVersion: string;
  /** The stunnel pair: `stunnel 5.68 (OpenSSL 3.0.19)`, and what relay A's probe connection negotiated with relay B. */
  readonly stunnel: { readonly version: string; readonly protocol: string; readonly cipher: string; readonly keyExchange: string };
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
  /** Streams per fairness measurement, and the sink's sampling interval (ms). */
  readonly fairnessStreams: number;
  readonly fairnessSampleMs: number;
  readonly fairness: readonly FairnessSample[];
  /** Concurrent loops, measured seconds and payload of each new-connection measurement. */
  readonly connectionRate: { readonly concurrency: number; readonly seconds: number; readonly payloadBytes: number };
  readonly connectionRates: readonly ConnectionRateSample[];
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
  'stunnel-pair': ['stunnel-a', 'stunnel-b'],
  overlay: ['r1', 'r2'],
  'overlay-chain': ['r1', 'r2', 'r3'],
  sdk: ['tunnel', 'r1', 'r2'],
  'sdk-encrypted': ['tunnel', 'r1', 'r2'],
};

/** The issue's bound on end-to-end encryption's cost: the encrypted SDK path's forwarder CPU per MB (tunnel + r1 +
 * r2) at most this many times the plain SDK path's. */
export const encryptedCpuTarget = 1.5;

/** Issue 42's targets for the data plane: each is reported with its verdict, never asserted. */
export const dataPlaneTargets = {
  /** overlay throughput at least this many times the stunnel pair's, at 1 and at 16 connections */
  overlayOverStunnel: 1.0,
  /** overlay throughput at least this many times socat's, at 1 and at 16 connections */
  overlayOverSocat: 0.6,
  /** overlay-chain (three routers) throughput at least this many times the stunnel pair's */
  chainOverStunnel: 0.7,
  /** r1 + r2's CPU per MB on the overlay path at most this (ms) */
  routersCpuMsPerMb: 3.5,
  /** the overlay's added p50 at 1 connection at most this many times socat's */
  addedP50OverSocat: 3,
  /** no stream of the fairness measurement below this fraction of its fair share (1 / streams) */
  fairShareFloor: 0.5,
  /** a stream with no byte for this long (ms) while the others move is stalled */
  stallMs: 1000,
} as const;

/** Cumulative bytes per stream, as the sink saw them at one moment (µs on its monotonic clock). */
export interface StreamCounts {
  readonly atUs: number;
  readonly bytes: readonly number[];
}

/** Each stream's bytes between the first and the last sample, and its longest stall: the longest run of sampling
 * intervals in which it received nothing, counting only the intervals in which the other streams together received
 * something (a pause of the whole path is no stream's stall). */
export function streamFairness(samples: readonly StreamCounts[]): { seconds: number; streamBytes: number[]; longestStallMs: number[] } {
  if (samples.length < 2) throw new Error(`fairness needs at least two samples, not ${samples.length}`);
  const streams = samples[0]!.bytes.length;
  const streamBytes: number[] = [];
  const longestStallMs: number[] = [];
  for (let i = 0; i < streams; i++) {
    let stalled = 0;
    let longest = 0;
    for (let k = 1; k < samples.length; k++) {
      const [before, after] = [samples[k - 1]!, samples[k]!];
      const own = after.bytes[i]! - before.bytes[i]!;
      if (own > 0) {
        stalled = 0;
        continue;
      }
      const others = sum(after.bytes) - sum(before.bytes) - own;
      if (others > 0) stalled += (after.atUs - before.atUs) / 1000;
      longest = Math.max(longest, stalled);
    }
    streamBytes.push(samples.at(-1)!.bytes[i]! - samples[0]!.bytes[i]!);
    longestStallMs.push(longest);
  }
  return { seconds: (samples.at(-1)!.atUs - samples[0]!.atUs) / 1e6, streamBytes, longestStallMs };
}

/** One fairness measurement judged: each stream's share of the total, the smallest and largest, the longest stall. */
export function fairnessVerdict(sample: FairnessSample): { shares: number[]; minShare: number; maxShare: number; longestStallMs: number; met: boolean } {
  const total = sum(sample.streamBytes);
  const shares = sample.streamBytes.map((bytes) => (total > 0 ? bytes / total : 0));
  const minShare = Math.min(...shares);
  const maxShare = Math.max(...shares);
  const longestStallMs = Math.max(0, ...sample.longestStallMs);
  const floor = dataPlaneTargets.fairShareFloor / Math.max(1, shares.length);
  return { shares, minShare, maxShare, longestStallMs, met: total > 0 && minShare >= floor && longestStallMs < dataPlaneTargets.stallMs };
}

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

/** `path` over `baseline` new connections per second: the ratio of the medians, and within each round. */
export function connectionRateRatio(run: OverlayBenchRun, path: PathName, baseline: PathName): { median: number; rounds: number[] } | undefined {
  const over = byRound(run.connectionRates.filter((sample) => sample.path === path));
  const under = byRound(run.connectionRates.filter((sample) => sample.path === baseline));
  if (over.length === 0 || under.length === 0) return undefined;
  const rounds = over.flatMap((sample) => {
    const other = under.find((candidate) => candidate.round === sample.round);
    return other ? [sample.perSecond / other.perSecond] : [];
  });
  return { median: median(over.map((s) => s.perSecond)) / median(under.map((s) => s.perSecond)), rounds };
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

export const overlaySectionHeading = '## Overlay: throughput, added latency, fairness and new connections against direct loopback, socat and a stunnel pair';

const list = (values: readonly number[], format: (value: number) => string) => values.map(format).join(', ');
const plural = (connections: number) => `${connections} connection${connections === 1 ? '' : 's'}`;
const verdictText = (met: boolean | undefined) => (met === undefined ? 'not measured' : met ? '**met**' : '**not met**');
const ratioText = (value: number) => fixed(value, 2);
const percent = (value: number) => `${fixed(value * 100, 1)}%`;

/** The routers' (r1 + r2) CPU per MB on the overlay path: the median, and each round's. */
export function routersCpu(run: OverlayBenchRun, connections: number): { median: number; rounds: number[] } | undefined {
  const samples = pick(run.throughput, 'overlay', connections);
  if (samples.length === 0) return undefined;
  const rounds = samples.map((sample) => sum(forwarderProcesses.overlay.map((name) => sample.cpuMsPerMb[name] ?? Number.NaN)));
  return { median: median(rounds), rounds };
}

/** The overlay's added p50 (over direct) divided by socat's: of the medians, and within each round. */
export function addedP50Ratio(run: OverlayBenchRun, connections: number): { median: number; overlayUs: number; socatUs: number; rounds: number[] } | undefined {
  const overlay = addedLatency(run, 'overlay', 'direct', connections);
  const socat = addedLatency(run, 'socat', 'direct', connections);
  if (!overlay || !socat) return undefined;
  // socat's added p50 can come out at or below zero in a noisy round: no ratio can be had from it.
  const ratio = (over: number, under: number) => (under > 0 ? over / under : Number.NaN);
  const socatRounds = pick(run.latency, 'socat', connections);
  const directRounds = pick(run.latency, 'direct', connections);
  const rounds = pick(run.latency, 'overlay', connections).flatMap((sample) => {
    const s = socatRounds.find((candidate) => candidate.round === sample.round);
    const d = directRounds.find((candidate) => candidate.round === sample.round);
    return s && d ? [ratio(sample.p50Us - d.p50Us, s.p50Us - d.p50Us)] : [];
  });
  return { median: ratio(overlay.p50Us, socat.p50Us), overlayUs: overlay.p50Us, socatUs: socat.p50Us, rounds };
}

/** Issue 42's "Done when" for the data plane, one line per target: the figure, every round's, and met or not met. */
export function targetVerdicts(run: OverlayBenchRun): string[] {
  const lines: string[] = [];
  const t = dataPlaneTargets;
  const ratioLine = (path: PathName, baseline: PathName, connections: number, target: number) => {
    const ratio = throughputRatio(run, path, baseline, connections);
    const met = ratio && Number.isFinite(ratio.median) ? ratio.median >= target : undefined;
    lines.push(
      `- ${path} throughput ≥ ${target.toFixed(1)}x ${baseline}'s at ${plural(connections)}: ` +
        (ratio ? `**${ratioText(ratio.median)}x** (by round ${list(ratio.rounds, ratioText)})` : '–') +
        `: ${verdictText(met)}`,
    );
  };
  for (const connections of run.connectionCounts) ratioLine('overlay', 'stunnel-pair', connections, t.overlayOverStunnel);
  for (const connections of run.connectionCounts) ratioLine('overlay', 'socat', connections, t.overlayOverSocat);
  for (const connections of run.connectionCounts) ratioLine('overlay-chain', 'stunnel-pair', connections, t.chainOverStunnel);
  for (const connections of run.connectionCounts) {
    const routers = routersCpu(run, connections);
    const met = routers && Number.isFinite(routers.median) ? routers.median <= t.routersCpuMsPerMb : undefined;
    lines.push(`- routers' CPU (r1 + r2, overlay) ≤ ${t.routersCpuMsPerMb} ms/MB at ${plural(connections)}: ` + (routers ? `**${cpu(routers.median)} ms/MB** (by round ${list(routers.rounds, cpu)})` : '–') + `: ${verdictText(met)}`);
  }
  const added = addedP50Ratio(run, 1);
  const addedMet = added && Number.isFinite(added.median) ? added.median <= t.addedP50OverSocat : undefined;
  lines.push(
    `- the overlay's added p50 at 1 connection ≤ ${t.addedP50OverSocat}x socat's: ` +
      (added ? `**${ratioText(added.median)}x** (${signedUs(added.overlayUs)} µs against ${signedUs(added.socatUs)} µs; by round ${list(added.rounds, ratioText)})` : '–') +
      `: ${verdictText(addedMet)}`,
  );
  for (const path of ['overlay', 'stunnel-pair'] as const) {
    const samples = byRound(run.fairness.filter((sample) => sample.path === path));
    const verdicts = samples.map(fairnessVerdict);
    const met = verdicts.length === 0 ? undefined : verdicts.every((verdict) => verdict.met);
    lines.push(
      `- ${run.fairnessStreams} concurrent streams through ${path === 'overlay' ? 'the overlay' : 'the stunnel pair (baseline)'} share fairly (none below ${fixed((100 * t.fairShareFloor) / run.fairnessStreams, 2)}% of the bytes, none stalled ≥ ${t.stallMs / 1000} s): ` +
        (verdicts.length > 0
          ? `smallest share by round ${list(verdicts.map((v) => v.minShare), percent)}, largest ${list(verdicts.map((v) => v.maxShare), percent)}, longest stall ${list(verdicts.map((v) => v.longestStallMs), (v) => `${fixed(v, 0)} ms`)}`
          : '–') +
        `: ${verdictText(met)}`,
    );
  }
  return lines;
}

export function overlaySummary(run: OverlayBenchRun): string {
  const { machine } = run;
  const measured = pathNames.filter((path) => run.paths.some((description) => description.name === path));
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.os}, Node ${machine.node}, ${run.socatVersion}, ${run.stunnel.version}; load average ${machine.loadAverage.toFixed(2)} at start.`,
    'How measured: everything on this one machine, on loopback, unpinned. One upstream Node process on 127.0.0.1 runs a sink (counts the bytes it reads) and an echo server;',
    'one client Node process (the load) connects to it through each path in turn: ' +
      run.paths.map((description) => `**${description.name}**, ${description.label}`).join('; ') +
      '. One controller process (test/support/controller-fixture.ts) and the routers run as an operator runs them (`./edgeward router enroll`, `./edgeward router run`); links are TLS; every router stays up throughout.' +
      (measured.some((path) => path.startsWith('sdk'))
        ? " The SDK paths' tunneler is `./edgeward tunnel run` with an identity file written by `./edgeward edge enroll`; its services differ only in `encryptionRequired` (false for sdk, true for sdk-encrypted: the SDK and r2 seal and open every byte)."
        : '') +
      (measured.includes('stunnel-pair')
        ? ` The stunnel pair is two \`stunnel4\` processes in the foreground, configs written to the run's temp dir, one service per upstream port, logging at stunnel's default level (notice) to a file only (\`syslog = no\`): relay A in client mode (plain TCP in, TLS out) verifies relay B's throwaway self-signed P-256 certificate (\`verifyChain\`, \`checkHost = localhost\`), relay B in server mode (TLS in, plain TCP out); both set \`sslVersionMin = TLSv1.3\`, and relay A's probe connection logged ${run.stunnel.protocol} ${run.stunnel.cipher}, key exchange ${run.stunnel.keyExchange}.`
        : ''),
    `Throughput: each connection writes ${run.writeBytes / 1024} KiB buffers as fast as its socket takes them; after a ${run.warmupSeconds} s warm-up, the sink's byte count over ${run.seconds} s (MB = 10^6 bytes).`,
    `Latency: on each established connection a ${run.messageBytes}-byte message goes up and is echoed back, the next sent once the whole echo is back, for ${run.latencySeconds} s after a ${run.latencyWarmupSeconds} s warm-up; p50 and p99 of every timed round trip of the measurement, in µs; the added latency is a path's p50 minus direct's.`,
    `CPU per MB: user + system time (all threads; socat's forked children once reaped) of the forwarding processes (socat; both stunnel relays, every thread; the routers; the tunneler and the routers for the SDK paths), and of the client and sink, from /proc over the connections' whole life (warm-up and drain included), per MB the sink received.`,
    `${run.rounds} round${run.rounds === 1 ? '' : 's'}; within a round each measurement (throughput at 1 and 16 connections, then latency at 1 and 16, then fairness, then new connections) is taken on every path it covers back to back, the order of paths rotating from round to round (${run.orders.map((order) => order.join(' → ')).join('; ')}). Figures are medians over the rounds; ratios are of the medians.`,
    `Fairness: ${run.fairnessStreams} connections on one path (the overlay, and the stunnel pair as the baseline) write as fast as they can; after all ${run.fairnessStreams} reach the sink and a ${run.warmupSeconds} s warm-up, the sink samples each one's byte count every ${run.fairnessSampleMs} ms for ${run.seconds} s; a stream's share is its bytes over all of theirs; a stream is stalled when it gets no byte for ≥ ${dataPlaneTargets.stallMs / 1000} s while the others together get some.`,
    `New connections: ${run.connectionRate.concurrency} concurrent loops in the client process each open a connection to the echo server through the path, write ${run.connectionRate.payloadBytes} bytes, read the whole echo, close, and go again, for ${run.connectionRate.seconds} s (bench/connection-rate-load.ts); connections per second, and p50 and p99 of connect → whole echo in ms (through the overlay that includes the circuit's setup: the controller's round trip and r2's dial); CPU per connection of the forwarders (socat's forked children; both stunnel relays, whose TLS sessions may resume; r1, r2 and the controller).`,
    `Before round 1, a pass over every path (2 s of throughput and 1 s of round trips at 16 connections${run.connectionRates.length > 0 ? ', then 1 s of new connections on each path that measures them' : ''}) warms the processes up and is not kept. The run took ${Math.round(run.setupSeconds)} s to set up and warm up, and ${Math.round(run.measureSeconds)} s to measure.`,
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
  if (run.fairness.length > 0) {
    lines.push('', `| Path | Round | MB/s, all ${run.fairnessStreams} | MB per stream | Share per stream | Smallest share | Largest share | Longest stall (ms) |`, '|---|---:|---:|---|---|---:|---:|---:|');
    for (const path of measured) {
      for (const sample of byRound(run.fairness.filter((candidate) => candidate.path === path))) {
        const verdict = fairnessVerdict(sample);
        lines.push(
          `| ${path} | ${sample.round} | ${mbps(sum(sample.streamBytes) / 1e6 / sample.seconds)} | ${list(sample.streamBytes, (bytes) => mbps(bytes / 1e6))} | ${list(verdict.shares, percent)} | ${percent(verdict.minShare)} | ${percent(verdict.maxShare)} | ${fixed(verdict.longestStallMs, 0)} |`,
        );
      }
    }
  }
  if (run.connectionRates.length > 0) {
    lines.push('', '| Path | Connections/s | by round | p50 (ms) | p99 (ms) | p50 by round | p99 by round | Failed | Forwarder CPU per connection (ms) |', '|---|---:|---|---:|---:|---|---|---:|---|');
    for (const path of measured) {
      const samples = byRound(run.connectionRates.filter((candidate) => candidate.path === path));
      if (samples.length === 0) continue;
      const processes = [...new Set(samples.flatMap((sample) => Object.keys(sample.cpuMsPerConnection)))];
      const byProcess = processes.map((name) => `${name} ${fixed(median(samples.map((sample) => sample.cpuMsPerConnection[name] ?? Number.NaN)), 2)}`).join(', ');
      const failures = samples.flatMap((sample) => (sample.firstFailure ? [sample.firstFailure] : []));
      lines.push(
        `| ${path} | ${fixed(median(samples.map((sample) => sample.perSecond)), 0)} | ${list(samples.map((sample) => sample.perSecond), (v) => fixed(v, 0))} | ${fixed(median(samples.map((sample) => sample.p50Ms)), 2)} | ${fixed(median(samples.map((sample) => sample.p99Ms)), 2)} | ${list(samples.map((sample) => sample.p50Ms), (v) => fixed(v, 2))} | ${list(samples.map((sample) => sample.p99Ms), (v) => fixed(v, 2))} | ${sum(samples.map((sample) => sample.failed))}${failures.length > 0 ? ` (${failures[0]!.replaceAll('|', '/')})` : ''} | ${byProcess || '–'} |`,
      );
    }
  }
  lines.push('', `Targets (issue 42's "Done when" for the data plane; measured, never a test failure):`, ...targetVerdicts(run), '');
  for (const path of measured.filter((name) => name !== 'direct' && name !== 'socat')) {
    for (const connections of run.connectionCounts) {
      const direct = throughputRatio(run, path, 'direct', connections);
      const socat = throughputRatio(run, path, 'socat', connections);
      if (!direct || !socat) continue;
      const overStunnel = path === 'stunnel-pair' ? undefined : throughputRatio(run, path, 'stunnel-pair', connections);
      const overOverlay = path.startsWith('sdk') ? throughputRatio(run, path, 'overlay', connections) : undefined;
      const more = [
        ...(overStunnel ? [`${path}/stunnel-pair: **${overStunnel.median.toFixed(2)}** (by round: ${list(overStunnel.rounds, (v) => v.toFixed(2))})`] : []),
        ...(overOverlay ? [`${path}/overlay: **${overOverlay.median.toFixed(2)}** (by round: ${list(overOverlay.rounds, (v) => v.toFixed(2))})`] : []),
      ];
      lines.push(
        `Throughput ${path}/direct at ${connections} connection${connections === 1 ? '' : 's'}: **${direct.median.toFixed(2)}** (by round: ${list(direct.rounds, (v) => v.toFixed(2))}); ${path}/socat: **${socat.median.toFixed(2)}** (by round: ${list(socat.rounds, (v) => v.toFixed(2))})` +
          more.map((part) => `; ${part}`).join('') +
          '.',
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
    const overStunnel = addedLatency(run, 'overlay', 'stunnel-pair', connections);
    if (parts.length > 0) {
      lines.push(
        `Added latency over direct at ${connections} connection${connections === 1 ? '' : 's'}: ${parts.join('; ')}${overSocat ? `; overlay over socat ${signedUs(overSocat.p50Us)} µs p50` : ''}${overStunnel ? `; overlay over stunnel-pair ${signedUs(overStunnel.p50Us)} µs p50` : ''}.`,
      );
    }
    const sdkOverOverlay = (['sdk', 'sdk-encrypted'] as const).flatMap((path) => {
      const added = addedLatency(run, path, 'overlay', connections);
      return added ? [`${path} **${signedUs(added.p50Us)} µs** p50 (${signedUs(added.p99Us)} µs p99; by round ${list(added.p50Rounds, signedUs)})`] : [];
    });
    if (sdkOverOverlay.length > 0) lines.push(`Added latency of the SDK paths over the router overlay at ${connections} connection${connections === 1 ? '' : 's'}: ${sdkOverOverlay.join('; ')}.`);
  }
  const connectionRatios = (['socat', 'stunnel-pair'] as const).flatMap((baseline) => {
    const ratio = connectionRateRatio(run, 'overlay', baseline);
    return ratio ? [`overlay/${baseline} **${ratio.median.toFixed(2)}** (by round: ${list(ratio.rounds, (v) => v.toFixed(2))})`] : [];
  });
  if (connectionRatios.length > 0) lines.push(`New connections per second: ${connectionRatios.join('; ')}.`);
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
