// The scale benchmark's section of bench/RESULTS.md: the 10x-Large model loaded into a three-controller cluster
// (entity rates, creation time per block of identities), memory as it grew, list and login figures at the full model,
// writes against an empty cluster, snapshot and restore, a follower caught up from empty, and circuits through a
// router against socat. Pure: figures in, text out. A phase that did not finish is written as such, never filled in.
import { percentile, replaceSection } from './raft-bench-report.ts';
import type { ConnectionRate } from './connection-rate-load.ts';
import type { RequestFigures } from './snapshot-bench-report.ts';

/** The issue's targets (issue 42, "Done when"). */
export const targets = {
  /** The last block of identities takes at most this many times as long as the first. */
  creationSlowdown: 1.5,
  leaderRssBytes: 1024 ** 3,
  filteredListP99Ms: 50,
  /** p99 of writes at the full model over its p99 on an empty cluster. */
  writeRatio: 1.5,
  catchUpSeconds: 120,
  circuitsPerSecond: 1000,
  circuitSetupP99Ms: 20,
} as const;

export type PhaseStatus = 'done' | 'failed' | 'timed out' | 'not run';

export interface PhaseOutcome {
  readonly name: string;
  readonly status: PhaseStatus;
  readonly seconds: number;
  /** Why it failed or was not run. */
  readonly detail?: string;
}

export interface EntityLoad {
  /** e.g. `services`, `edge routers`. */
  readonly kind: string;
  readonly count: number;
  readonly seconds: number;
  readonly failed: number;
  readonly firstFailure?: string;
}

export interface TimelinePoint {
  readonly count: number;
  readonly loadSeconds: number;
}

export interface MemorySample {
  /** Identities in the model when sampled. */
  readonly identities: number;
  readonly controller: string;
  readonly role: 'leader' | 'follower';
  readonly rssBytes?: number;
  readonly heapUsedBytes?: number;
}

/** Requests timed one after another (bench/scale-probes.ts's timedGets). */
export interface TimedRequests {
  readonly requests: number;
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Rows the answer said matched (meta.pagination.totalCount), where it says. */
  readonly totalCount?: number;
  readonly firstFailure?: string;
}

export interface LatencyFigures extends TimedRequests {
  /** What was asked, e.g. `GET /identities?filter=name contains "x-42"&limit=25`. */
  readonly request: string;
  readonly controller: string;
  readonly role: 'leader' | 'follower';
  /** A target this figure is judged against (the filtered identity lists'). */
  readonly targetP99Ms?: number;
}

export interface LoginRate {
  readonly method: 'password' | 'cert';
  readonly controller: string;
  readonly concurrency: number;
  readonly seconds: number;
  readonly logins: number;
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly firstFailure?: string;
}

export interface WriteRound {
  readonly round: number;
  readonly first: 'empty' | 'full';
  readonly empty: RequestFigures;
  readonly full: RequestFigures;
}

export interface SnapshotFigures {
  readonly seconds: number;
  readonly sizeBytes: number;
  readonly index: number;
  readonly restoreSeconds?: number;
  /** From `controller run` to healthy, on the restored data folder. */
  readonly restoredStartSeconds?: number;
  /** Identities the restored controller lists once it leads. */
  readonly restoredIdentities?: number;
  readonly restoredRssBytes?: number;
}

export interface CatchUpFigures {
  /** The member that caught up, and whose place it took. */
  readonly controller: string;
  /** From `cluster.add` of the new, empty member to its applied index reaching the leader's (as it was when the member
   * was added) and its identity count matching the leader's. */
  readonly seconds: number;
  readonly leaderApplied: number;
  readonly followerApplied: number;
  readonly identities: number;
  readonly rssBytes?: number;
}

export interface CircuitRound {
  readonly round: number;
  readonly first: 'socat' | 'overlay';
  readonly socat: ConnectionRate;
  readonly overlay: ConnectionRate;
}

export interface ScaleRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number; readonly loadAverageAtEnd: number };
  readonly plan: {
    readonly identities: number;
    readonly services: number;
    readonly servicePolicies: number;
    readonly edgeRouterPolicies: number;
    readonly edgeRouters: number;
    readonly roleGroups: number;
    readonly wrkConnections: number;
    readonly entityConcurrency: number;
    readonly memoryStops: readonly number[];
  };
  readonly entities: readonly EntityLoad[];
  readonly identities?: { readonly count: number; readonly seconds: number; readonly timeline: readonly TimelinePoint[]; readonly stoppedAtDeadline: boolean };
  readonly memory: readonly MemorySample[];
  readonly latency: readonly LatencyFigures[];
  readonly logins: readonly LoginRate[];
  readonly writeRate: number;
  readonly writeSeconds: number;
  readonly writes: readonly WriteRound[];
  readonly snapshot?: SnapshotFigures;
  readonly catchUp?: CatchUpFigures;
  readonly circuitSeconds: number;
  readonly circuitConcurrency: number;
  readonly circuits: readonly CircuitRound[];
  readonly phases: readonly PhaseOutcome[];
}

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

/** The load seconds at which `count` identities were stored, by linear interpolation between the timeline's points
 * (the start is 0 identities at 0 s); undefined past the last point. */
export function secondsAt(timeline: readonly TimelinePoint[], count: number): number | undefined {
  let previous: TimelinePoint = { count: 0, loadSeconds: 0 };
  for (const point of timeline) {
    if (point.count >= count) {
      if (point.count === previous.count) return point.loadSeconds;
      return previous.loadSeconds + ((count - previous.count) / (point.count - previous.count)) * (point.loadSeconds - previous.loadSeconds);
    }
    previous = point;
  }
  return undefined;
}

/** The block size for creation time: 100,000 identities, or a tenth of what was stored when that is fewer than
 * 200,000 (a development run), so that there is a first and a last block to compare. */
export function blockSize(stored: number): number {
  return stored >= 200_000 ? 100_000 : Math.max(1, Math.floor(stored / 10));
}

export interface CreationBlock {
  readonly from: number;
  readonly to: number;
  readonly seconds: number;
}

/** Seconds of load per whole block of identities, in order. */
export function creationBlocks(timeline: readonly TimelinePoint[]): CreationBlock[] {
  const stored = timeline.at(-1)?.count ?? 0;
  const size = blockSize(stored);
  const blocks: CreationBlock[] = [];
  for (let from = 0; from + size <= stored; from += size) {
    const start = secondsAt(timeline, from);
    const end = secondsAt(timeline, from + size);
    if (start === undefined || end === undefined) break;
    blocks.push({ from, to: from + size, seconds: end - start });
  }
  return blocks;
}

/** The last block's time over the first's; undefined with fewer than two blocks. */
export function creationSlowdown(blocks: readonly CreationBlock[]): number | undefined {
  if (blocks.length < 2) return undefined;
  return blocks.at(-1)!.seconds / Math.max(1e-9, blocks[0]!.seconds);
}

/** p99(full model) / p99(empty cluster) of one round. */
export const writeRoundRatio = (round: WriteRound) => round.full.p99Ms / Math.max(1e-9, round.empty.p99Ms);

/** overlay / socat new connections per second, of one round. */
export const circuitRoundRatio = (round: CircuitRound) => round.overlay.perSecond / Math.max(1e-9, round.socat.perSecond);

const fixed = (value: number, digits: number) => value.toFixed(digits);
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${fixed(bytes / 1024 ** 2, 0)} MiB`);
const verdict = (met: boolean) => (met ? '**met**' : '**not met**');

function phaseLine(phase: PhaseOutcome): string {
  return `- ${phase.name}: ${phase.status} after ${fixed(phase.seconds, 0)} s${phase.detail ? ` (${phase.detail})` : ''}`;
}

function loadingLines(run: ScaleRun): string[] {
  const lines = ['### Loading', ''];
  lines.push('| Entity | Created | Failed | Seconds | Per second |', '|---|---:|---:|---:|---:|');
  for (const entity of run.entities) lines.push(`| ${entity.kind} | ${thousands(entity.count)} | ${entity.failed} | ${fixed(entity.seconds, 1)} | ${fixed(entity.count / Math.max(1e-9, entity.seconds), 0)} |`);
  const identities = run.identities;
  if (identities) lines.push(`| identities (wrk) | ${thousands(identities.count)} | – | ${fixed(identities.seconds, 1)} | ${fixed(identities.count / Math.max(1e-9, identities.seconds), 0)} |`);
  lines.push('');
  for (const entity of run.entities) if (entity.firstFailure) lines.push(`First failure creating ${entity.kind}: ${entity.firstFailure}.`);
  if (!identities) {
    lines.push('Identities: the load did not finish (see the phases below).');
    return lines;
  }
  if (identities.stoppedAtDeadline) lines.push(`The identity load stopped at its time limit with **${thousands(identities.count)} of ${thousands(run.plan.identities)}** identities: every later figure is at that size.`, '');
  const blocks = creationBlocks(identities.timeline);
  const size = blockSize(identities.count);
  if (blocks.length > 0) {
    lines.push(`Creation time per ${thousands(size)} identities (seconds wrk ran, interpolated within a wrk run; pauses for memory readings left out):`);
    lines.push('', '| Identities | Seconds | Per second |', '|---|---:|---:|');
    for (const block of blocks) lines.push(`| ${thousands(block.from)} → ${thousands(block.to)} | ${fixed(block.seconds, 1)} | ${fixed(size / Math.max(1e-9, block.seconds), 0)} |`);
    lines.push('');
  }
  const slowdown = creationSlowdown(blocks);
  if (slowdown === undefined) lines.push('Last block against the first: fewer than two blocks were stored.');
  else lines.push(`Last ${thousands(size)} against the first: **${fixed(slowdown, 2)}x** as long (target ≤ ${targets.creationSlowdown}x): ${verdict(slowdown <= targets.creationSlowdown)}.`);
  lines.push(`wrk runs (identities stored after each, seconds wrk had run): ${identities.timeline.map((point) => `${thousands(point.count)} @ ${fixed(point.loadSeconds, 0)} s`).join(', ')}.`);
  return lines;
}

function memoryLines(run: ScaleRun): string[] {
  const lines = ['### Memory', ''];
  if (run.memory.length === 0) return [...lines, 'No reading was taken.'];
  lines.push('| Identities | Controller | Role | RSS | Heap used |', '|---:|---|---|---:|---:|');
  for (const sample of run.memory) lines.push(`| ${thousands(sample.identities)} | ${sample.controller} | ${sample.role} | ${mib(sample.rssBytes)} | ${mib(sample.heapUsedBytes)} |`);
  const top = Math.max(...run.memory.map((sample) => sample.identities));
  const leaderAtTop = run.memory.find((sample) => sample.identities === top && sample.role === 'leader');
  lines.push('');
  if (leaderAtTop?.rssBytes !== undefined) {
    const scope = top >= run.plan.identities ? 'at the full model' : `at ${thousands(top)} identities, the most this run stored (not the full model)`;
    lines.push(`Leader RSS ${scope}: **${mib(leaderAtTop.rssBytes)}** (target ≤ 1 GiB at ${thousands(run.plan.identities)}): ${top >= run.plan.identities ? verdict(leaderAtTop.rssBytes <= targets.leaderRssBytes) : (leaderAtTop.rssBytes > targets.leaderRssBytes ? '**not met** (already over at fewer identities)' : 'not judged (the full model was not loaded)')}.`);
  }
  return lines;
}

function latencyLines(run: ScaleRun): string[] {
  const lines = ['### Reads at the full model', ''];
  if (run.latency.length === 0) lines.push('No read was measured.');
  else {
    lines.push('| Request | Controller | Role | Requests | Failed | Matched | p50 (ms) | p99 (ms) | max (ms) | Target p99 |', '|---|---|---|---:|---:|---:|---:|---:|---:|---|');
    for (const figures of run.latency) {
      const target = figures.targetP99Ms === undefined ? '–' : `≤ ${figures.targetP99Ms} ms: ${figures.p99Ms <= figures.targetP99Ms && figures.failed === 0 ? 'met' : 'not met'}`;
      lines.push(`| \`${figures.request}\` | ${figures.controller} | ${figures.role} | ${figures.requests} | ${figures.failed} | ${figures.totalCount === undefined ? '–' : thousands(figures.totalCount)} | ${fixed(figures.p50Ms, 1)} | ${fixed(figures.p99Ms, 1)} | ${fixed(figures.maxMs, 1)} | ${target} |`);
    }
    for (const figures of run.latency) if (figures.firstFailure) lines.push('', `First failure of \`${figures.request}\` on ${figures.controller}: ${figures.firstFailure}.`);
  }
  lines.push('', '### Logins at the full model', '');
  if (run.logins.length === 0) return [...lines, 'No login was measured.'];
  lines.push('| Method | Controller | In flight | Seconds | Logins | Failed | Per second | p50 (ms) | p99 (ms) |', '|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const login of run.logins) lines.push(`| ${login.method} | ${login.controller} | ${login.concurrency} | ${fixed(login.seconds, 1)} | ${login.logins} | ${login.failed} | ${fixed(login.logins / Math.max(1e-9, login.seconds), 1)} | ${fixed(login.p50Ms, 1)} | ${fixed(login.p99Ms, 1)} |`);
  for (const login of run.logins) if (login.firstFailure) lines.push('', `First failure of the ${login.method} logins: ${login.firstFailure}.`);
  return lines;
}

function writeLines(run: ScaleRun): string[] {
  const lines = ['### Writes: full model against an empty cluster', ''];
  if (run.writes.length === 0) return [...lines, 'Not measured (see the phases below).'];
  lines.push(`${run.writeRate} writes/s offered for ${run.writeSeconds} s through each cluster's leader (\`PATCH /identities/<id>\`, open loop), the full cluster and a second, empty three-controller cluster started beside it, taking turns (the first alternates by round).`);
  lines.push('', '| Round | Cluster | Writes ok/sent | Failed | p50 (ms) | p99 (ms) | max (ms) |', '|---:|---|---:|---:|---:|---:|---:|');
  for (const round of run.writes) {
    const order = round.first === 'empty' ? (['empty', 'full'] as const) : (['full', 'empty'] as const);
    for (const which of order) {
      const figures = round[which];
      lines.push(`| ${round.round} | ${which === 'full' ? 'full model' : 'empty'} | ${figures.ok}/${figures.sent} | ${figures.failed} | ${fixed(figures.p50Ms, 1)} | ${fixed(figures.p99Ms, 1)} | ${fixed(figures.maxMs, 1)} |`);
    }
  }
  const ratios = run.writes.map(writeRoundRatio);
  const ratio = median(ratios);
  lines.push('', `By round, p99(full)/p99(empty): ${run.writes.map((round) => `round ${round.round}: ${fixed(writeRoundRatio(round), 2)}`).join(', ')}; median **${fixed(ratio, 2)}** (target ≤ ${targets.writeRatio}): ${verdict(ratio <= targets.writeRatio)}.`);
  for (const round of run.writes) {
    for (const which of ['empty', 'full'] as const) {
      const kinds = round[which].failureKinds.map((kind) => `${kind.count} × ${kind.text}`);
      if (kinds.length > 0) lines.push(`Failures, round ${round.round} ${which}: ${kinds.join('; ')}.`);
    }
  }
  return lines;
}

function recoveryLines(run: ScaleRun): string[] {
  const lines = ['### Snapshot, restore, a follower caught up from empty', ''];
  const snapshot = run.snapshot;
  if (snapshot) {
    lines.push(`\`./edgeward agent controller snapshot\` on the leader: **${fixed(snapshot.seconds, 1)} s**, ${mib(snapshot.sizeBytes)} (${snapshot.sizeBytes} bytes) at raft index ${snapshot.index}.`);
    if (snapshot.restoreSeconds !== undefined) lines.push(`\`./edgeward controller restore\` into an empty data folder: **${fixed(snapshot.restoreSeconds, 1)} s**.`);
    if (snapshot.restoredStartSeconds !== undefined) lines.push(`The restored controller's start (\`controller run\` to healthy): **${fixed(snapshot.restoredStartSeconds, 1)} s**${snapshot.restoredIdentities === undefined ? '' : `; it then listed ${thousands(snapshot.restoredIdentities)} identities`}${snapshot.restoredRssBytes === undefined ? '' : `, RSS ${mib(snapshot.restoredRssBytes)}`}.`);
  } else lines.push('Snapshot: not taken (see the phases below).');
  const catchUp = run.catchUp;
  if (catchUp) {
    lines.push(`A follower stopped and removed (\`cluster.remove\`), a new controller with an empty data folder added (\`cluster.add\`): ${catchUp.controller} caught up (applied index ${catchUp.followerApplied} ≥ the leader's ${catchUp.leaderApplied} when it was added, ${thousands(catchUp.identities)} identities, as on the leader) after **${fixed(catchUp.seconds, 1)} s** (target ≤ ${targets.catchUpSeconds} s): ${verdict(catchUp.seconds <= targets.catchUpSeconds)}${catchUp.rssBytes === undefined ? '' : `; its RSS then ${mib(catchUp.rssBytes)}`}.`);
  } else lines.push('Follower caught up from empty: not measured (see the phases below).');
  return lines;
}

function circuitLines(run: ScaleRun): string[] {
  const lines = ['### Circuits at the full model', ''];
  if (run.circuits.length === 0) return [...lines, 'Not measured (see the phases below).'];
  lines.push(`New connections through r1's proxy-mode tunnel listener (r1 → link → r2, host mode → an echo server) against \`socat TCP-LISTEN:…,fork\` → the same echo server, ${run.circuitConcurrency} connections at a time, closed loop (connect, 64 bytes echoed, close), ${run.circuitSeconds} s each, taking turns (bench/connection-rate-load.ts).`);
  lines.push('', '| Round | Path | Completed | Failed | Per second | Setup p50 (ms) | Setup p99 (ms) | Setup max (ms) |', '|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const round of run.circuits) {
    const order = round.first === 'socat' ? (['socat', 'overlay'] as const) : (['overlay', 'socat'] as const);
    for (const path of order) {
      const rate = round[path];
      lines.push(`| ${round.round} | ${path === 'overlay' ? 'overlay (r1 → r2)' : 'socat'} | ${rate.completed} | ${rate.failed} | ${fixed(rate.perSecond, 0)} | ${fixed(rate.setupMs.p50, 1)} | ${fixed(rate.setupMs.p99, 1)} | ${fixed(rate.setupMs.max, 1)} |`);
    }
  }
  const perSecond = median(run.circuits.map((round) => round.overlay.perSecond));
  const p99 = median(run.circuits.map((round) => round.overlay.setupMs.p99));
  lines.push('', `By round, overlay/socat per second: ${run.circuits.map((round) => `round ${round.round}: ${fixed(circuitRoundRatio(round), 2)}`).join(', ')}; median ${fixed(median(run.circuits.map(circuitRoundRatio)), 2)}.`);
  lines.push(`Overlay, median over the rounds: **${fixed(perSecond, 0)} circuits/s**, setup p99 **${fixed(p99, 1)} ms** (target ≥ ${thousands(targets.circuitsPerSecond)}/s with p99 ≤ ${targets.circuitSetupP99Ms} ms): ${verdict(perSecond >= targets.circuitsPerSecond && p99 <= targets.circuitSetupP99Ms)}.`);
  for (const round of run.circuits) {
    for (const path of ['socat', 'overlay'] as const) if (round[path].firstFailure) lines.push(`First failure, round ${round.round} ${path}: ${round[path].firstFailure}.`);
  }
  return lines;
}

export function scaleSummary(run: ScaleRun): string {
  const plan = run.plan;
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${fixed(run.machine.loadAverage, 2)} at start, ${fixed(run.machine.loadAverageAtEnd, 2)} at the end.`,
    `Model planned: ${thousands(plan.identities)} identities (each with one of ${plan.roleGroups} group attributes), ${thousands(plan.services)} services, ${thousands(plan.servicePolicies)} service policies, ${thousands(plan.edgeRouterPolicies)} edge router policies, ${thousands(plan.edgeRouters)} edge routers (rows only), loaded in that order (identities last) through the leader's management API of a three-controller cluster on loopback (TLS, raft defaults): the other kinds ${plan.entityConcurrency} requests at a time, identities with wrk (${plan.wrkConnections} connections, \`POST /identities\`).`,
    'Memory: RSS from /proc/<pid>/status, heap used from each controller\'s `/metrics` (`edgeward_nodejs_heap_used_bytes`), read while the load paused.',
    '',
    ...loadingLines(run),
    '',
    ...memoryLines(run),
    '',
    ...latencyLines(run),
    '',
    ...writeLines(run),
    '',
    ...recoveryLines(run),
    '',
    ...circuitLines(run),
    '',
    '### Phases',
    '',
    ...run.phases.map(phaseLine),
  ];
  return lines.join('\n');
}

export const scaleSectionHeading = '## Scale: the controller at ten times "Large"';

export function renderScaleSection(previous: string | undefined, run: ScaleRun, notes: string): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'scale', scaleSectionHeading, `${scaleSummary(run)}\n\n${notes}`);
}
