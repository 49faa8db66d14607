// The controller memory bench's report: its marked section of bench/RESULTS.md. Pure: figures in, text out.
import type { BreakdownPart, GcFigures, LoadFigures, MemoryFigures, ProbeFigures } from './controller-memory-model.ts';
import { percentile, replaceSection } from './raft-bench-report.ts';
import { median } from './snapshot-bench-report.ts';

/** The issue's targets: leader RSS at 1M identities, and write p99 at the full model against the empty one. */
export const rssTargetBytes = 1024 * 1024 * 1024;
export const writeRatioTarget = 1.5;

export interface ProbeMeasurement {
  readonly writes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly cpuUsPerWrite: number;
  readonly gc: GcFigures;
  readonly forcedScavengeP50Ms: number;
  readonly forcedScavengeP99Ms: number;
  /** The machine's 1-minute load average when the measurement ended. */
  readonly loadAverage: number;
}

export interface ProbeRound {
  readonly round: number;
  readonly first: 'empty' | 'full';
  readonly empty: ProbeMeasurement;
  readonly full: ProbeMeasurement;
}

export interface MemoryRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number; readonly loadAverageAtEnd: number };
  readonly nodeFlags: readonly string[];
  readonly model: { readonly routers: number; readonly services: number; readonly servicePolicies: number; readonly edgeRouterPolicies: number };
  /** Heap used by the child with an empty model open (the process itself). */
  readonly baselineHeapBytes: number;
  /** The routers, services and policies (0 identities) first, then one per size. */
  readonly checkpoints: readonly LoadFigures[];
  /** The full model after the store was closed and opened again (every row read back from ctrl.db). */
  readonly reopened: { readonly memory: MemoryFigures; readonly seconds: number };
  readonly writeRate: number;
  readonly probeSeconds: number;
  readonly rounds: readonly ProbeRound[];
  readonly breakdown: readonly BreakdownPart[];
}

export function probeFigures(figures: ProbeFigures, loadAverage: number): ProbeMeasurement {
  const sorted = [...figures.latenciesMs].sort((a, b) => a - b);
  const forced = [...figures.forcedScavengesMs].sort((a, b) => a - b);
  return {
    writes: figures.writes,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1] ?? 0,
    cpuUsPerWrite: (figures.cpuSeconds * 1e6) / Math.max(1, figures.writes),
    gc: figures.gc,
    forcedScavengeP50Ms: percentile(forced, 0.5),
    forcedScavengeP99Ms: percentile(forced, 0.99),
    loadAverage,
  };
}

/** A round's write p99 at the full model over the empty one's. */
export const roundRatio = (round: ProbeRound) => round.full.p99Ms / Math.max(1e-9, round.empty.p99Ms);

const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const ms = (value: number) => value.toFixed(2);
const count = (value: number) => value.toLocaleString('en-US');

export const memorySectionHeading = '## Controller memory and write latency as the model grows (in-process model, 0 to 1M identities)';

export function memorySummary(run: MemoryRun): string {
  const base = run.checkpoints[0];
  if (!base) throw new Error('a memory run has at least the checkpoint before identities');
  const last = run.checkpoints[run.checkpoints.length - 1]!;
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${run.machine.loadAverage.toFixed(2)} at start, ${run.machine.loadAverageAtEnd.toFixed(2)} at the end.`,
    `Node flags of the model processes: ${['--expose-gc', ...run.nodeFlags].map((flag) => `\`${flag}\``).join(' ')}.`,
    `The model: a ModelStore over LevelDB (ctrl.db in a temp folder) behind ModelStateMachine, in a child process, applying commands as a controller applies committed entries (64 per apply call, one raft index each): ${count(run.model.routers)} edge routers, ${count(run.model.services)} services, ${count(run.model.servicePolicies)} service policies, ${count(run.model.edgeRouterPolicies)} edge router policies, then \`identity.create\` (as IdentityService.create makes it: two role attributes, no authenticator) up to each size. Memory is read after two full collections (\`--expose-gc\`): what the model holds, not garbage waiting. Bytes per identity: heap used above the 0-identity row, divided by the identities.`,
    '',
    '| Identities | Load (s) | Identities/s | CPU per identity (µs) | Heap used (MiB) | Heap total (MiB) | RSS (MiB) | Heap per identity (B) | RSS per identity (B) | Scavenges while loading | Scavenge p99 (ms) | Mark-compacts | Mark-compact p99 (ms) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const point of run.checkpoints) {
    const n = point.memory.identities;
    const perHeap = n > 0 ? ((point.memory.heapUsedBytes - base.memory.heapUsedBytes) / n).toFixed(0) : '–';
    const perRss = n > 0 ? ((point.memory.rssBytes - base.memory.rssBytes) / n).toFixed(0) : '–';
    const rate = point.added > 0 ? (point.added / point.seconds).toFixed(0) : '–';
    const cpu = point.added > 0 ? ((point.cpuSeconds * 1e6) / point.added).toFixed(1) : '–';
    const gc = point.gc;
    lines.push(
      `| ${count(n)} | ${point.added > 0 ? point.seconds.toFixed(1) : '–'} | ${rate} | ${cpu} | ${mib(point.memory.heapUsedBytes)} | ${mib(point.memory.heapTotalBytes)} | ${mib(point.memory.rssBytes)} | ${perHeap} | ${perRss} | ${point.added > 0 ? gc.scavenges : '–'} | ${point.added > 0 ? ms(gc.scavengeP99Ms) : '–'} | ${point.added > 0 ? gc.markCompacts : '–'} | ${point.added > 0 ? ms(gc.markCompactP99Ms) : '–'} |`,
    );
  }
  const reopened = run.reopened.memory;
  const rssVerdict = (bytes: number) => (bytes <= rssTargetBytes ? 'within' : 'over');
  const identityShare = reopened.heapUsedBytes - base.memory.heapUsedBytes;
  lines.push(
    `| ${count(reopened.identities)}, reopened | ${run.reopened.seconds.toFixed(1)} | – | – | ${mib(reopened.heapUsedBytes)} | ${mib(reopened.heapTotalBytes)} | ${mib(reopened.rssBytes)} | ${(identityShare / Math.max(1, reopened.identities)).toFixed(0)} | ${((reopened.rssBytes - base.memory.rssBytes) / Math.max(1, reopened.identities)).toFixed(0)} | – | – | – | – |`,
    '',
    `Reopened: the store closed and opened again in the same process (a controller restarting: every row read back from ctrl.db's JSON, ${run.reopened.seconds.toFixed(1)} s); the probe and the breakdown below use it.`,
    `At ${count(last.memory.identities)} identities: RSS **${mib(last.memory.rssBytes)} MiB** as loaded, ${rssVerdict(last.memory.rssBytes)} the 1 GiB target, and **${mib(reopened.rssBytes)} MiB** reopened, ${rssVerdict(reopened.rssBytes)} it, for the model process alone (a controller adds its web and raft layers); heap used ${mib(last.memory.heapUsedBytes)} MiB loaded, ${mib(reopened.heapUsedBytes)} MiB reopened (the process itself, model empty: ${mib(run.baselineHeapBytes)} MiB).`,
    '',
    `What the identities' share of the reopened heap (${mib(identityShare)} MiB at ${count(reopened.identities)}) is made of, each part built again from the rows and measured alone; and a raft log holding one entry per identity, as the core does until a snapshot compacts it:`,
    '',
    '| Part | MiB | Bytes per identity |',
    '|---|---:|---:|',
  );
  for (const part of run.breakdown) lines.push(`| ${part.part} | ${mib(part.bytes)} | ${(part.bytes / Math.max(1, last.memory.identities)).toFixed(0)} |`);
  lines.push(
    '',
    `Write probe: ${run.writeRate} writes/s for ${run.probeSeconds} s per measurement, open loop, each an \`identity.update\` (a new tag on one of 500 identities) applied through the state machine and written to LevelDB at once (the store's 50 ms gathering forced), timed from when it was due. Each measurement starts 5 s after two full collections (their concurrent sweeping done). Baseline: a second model process with an empty model, in the same rounds, alternating which goes first. Forced scavenge: \`gc({type: 'minor'})\` after every fifth write, outside the write's time: what one scavenge costs at that model size. CPU: the model process's user + system time per write.`,
    '',
    '| Round | Model | Writes | p50 (ms) | p99 (ms) | max (ms) | CPU per write (µs) | Scavenges (forced included) | Scavenge p99 (ms) | Mark-compacts | Forced scavenge p50 (ms) | Forced scavenge p99 (ms) | Load avg |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const round of run.rounds) {
    const order = round.first === 'empty' ? (['empty', 'full'] as const) : (['full', 'empty'] as const);
    for (const which of order) {
      const m = round[which];
      lines.push(
        `| ${round.round} | ${which === 'empty' ? 'empty (baseline)' : `full (${count(last.memory.identities)})`} | ${m.writes} | ${ms(m.p50Ms)} | ${ms(m.p99Ms)} | ${ms(m.maxMs)} | ${m.cpuUsPerWrite.toFixed(0)} | ${m.gc.scavenges} | ${ms(m.gc.scavengeP99Ms)} | ${m.gc.markCompacts} | ${ms(m.forcedScavengeP50Ms)} | ${ms(m.forcedScavengeP99Ms)} | ${m.loadAverage.toFixed(2)} |`,
      );
    }
  }
  const ratios = run.rounds.map(roundRatio);
  const medianRatio = median(ratios);
  lines.push(
    '',
    `By round, write p99 full/empty: ${run.rounds.map((round, i) => `round ${round.round}: ${ratios[i]!.toFixed(2)}`).join(', ')}; median **${medianRatio.toFixed(2)}** (target ≤ ${writeRatioTarget}: ${medianRatio <= writeRatioTarget ? 'met' : 'not met'}).`,
    `Forced scavenge p50 (median over the rounds): empty ${ms(median(run.rounds.map((r) => r.empty.forcedScavengeP50Ms)))} ms, full ${ms(median(run.rounds.map((r) => r.full.forcedScavengeP50Ms)))} ms; CPU per write (median): empty ${median(run.rounds.map((r) => r.empty.cpuUsPerWrite)).toFixed(0)} µs, full ${median(run.rounds.map((r) => r.full.cpuUsPerWrite)).toFixed(0)} µs.`,
  );
  return lines.join('\n');
}

export function renderMemorySection(previous: string | undefined, run: MemoryRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'controller-memory', memorySectionHeading, memorySummary(run));
}
