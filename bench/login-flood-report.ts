// Pure helpers for bench/login-flood.ts: a variant's raw samples in (write latencies and outcomes, terms seen, wrk's
// login figures), its figures and the text of the marked RESULTS.md section out, with the issue's verdict: a login
// flood at full CPU causes no election and no commit timeout once password hashing has its own bounded queue.
import { percentile, replaceSection } from './raft-bench-report.ts';
import type { WrkFigures } from './wrk-output.ts';

/** One write of the steady load: how long it took and how it ended (`201`, `503 TIMEOUT`, `no answer`, ...). */
export interface WriteSample {
  readonly ms: number;
  readonly outcome: string;
}

export interface WriteFigures {
  readonly sent: number;
  /** Answers by outcome, most frequent first. */
  readonly outcomes: ReadonlyArray<readonly [string, number]>;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** What a commit timeout looks like to a client: the write's proposal timed out (503 TIMEOUT), or no answer at all. */
export const commitTimeoutOutcomes: readonly string[] = ['503 TIMEOUT', 'no answer'];

export interface PhaseFigures {
  readonly phase: 'quiet' | 'flood';
  readonly seconds: number;
  /** Term increases seen over the phase (each one an election; pre-vote does not raise the term). */
  readonly elections: number;
  readonly leaderChanges: number;
  /** Status polls of a controller that got no answer in time. */
  readonly unansweredPolls: number;
  /** The steady writes through the leader (the flood's target) and through a follower (forwarded to the leader). */
  readonly writes: WriteFigures;
  readonly followerWrites: WriteFigures;
  /** The flood's logins, as wrk saw them (the quiet phase has none). */
  readonly logins?: WrkFigures;
  /** Share of the machine's CPU time that was busy over the phase, 0 to 1. */
  readonly cpuBusy: number;
}

export interface FloodVariant {
  /** `off` (concurrency 0, the behaviour before the queue) or `on` (the defaults). */
  readonly name: string;
  readonly description: string;
  readonly phases: readonly PhaseFigures[];
}

export interface LoginFloodRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly wrkVersion: string;
  readonly raftTimeouts: { readonly electionTimeoutMs: number; readonly heartbeatTimeoutMs: number; readonly commitTimeoutMs: number };
  readonly writeRate: number;
  readonly floodConnections: number;
  readonly threads: number;
  readonly variants: readonly FloodVariant[];
}

export function writeFigures(samples: readonly WriteSample[]): WriteFigures {
  const counts = new Map<string, number>();
  for (const sample of samples) counts.set(sample.outcome, (counts.get(sample.outcome) ?? 0) + 1);
  const answered = samples.filter((sample) => sample.outcome !== 'no answer').map((sample) => sample.ms).sort((a, b) => a - b);
  return {
    sent: samples.length,
    outcomes: [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    p50Ms: percentile(answered, 0.5),
    p99Ms: percentile(answered, 0.99),
    maxMs: answered.length === 0 ? 0 : answered[answered.length - 1]!,
  };
}

/** Elections and leader changes from the (term, leader) each poll saw, in order. */
export function termChanges(polls: ReadonlyArray<{ readonly term: number; readonly leader: string | undefined }>): { elections: number; leaderChanges: number } {
  if (polls.length === 0) return { elections: 0, leaderChanges: 0 };
  const terms = polls.map((poll) => poll.term);
  let leaderChanges = 0;
  let leader = polls[0]!.leader;
  for (const poll of polls) {
    if (poll.leader !== undefined && poll.leader !== leader) {
      if (leader !== undefined) leaderChanges++;
      leader = poll.leader;
    }
  }
  return { elections: Math.max(...terms) - terms[0]!, leaderChanges };
}

export function commitTimeouts(writes: WriteFigures): number {
  return writes.outcomes.filter(([outcome]) => commitTimeoutOutcomes.includes(outcome)).reduce((sum, [, count]) => sum + count, 0);
}

/** The issue's target for one variant's flood phase: no election and no commit timeout. */
export function floodVerdict(variant: FloodVariant): { met: boolean; elections: number; commitTimeouts: number } | undefined {
  const flood = variant.phases.find((phase) => phase.phase === 'flood');
  if (!flood) return undefined;
  const timeouts = commitTimeouts(flood.writes) + commitTimeouts(flood.followerWrites);
  return { met: flood.elections === 0 && timeouts === 0, elections: flood.elections, commitTimeouts: timeouts };
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const outcomesText = (outcomes: ReadonlyArray<readonly [string, number]>) => outcomes.map(([outcome, count]) => `${outcome}: ${count}`).join(', ') || '–';
const statusesText = (statuses: Readonly<Record<string, number>> | undefined) =>
  statuses === undefined ? '–' : Object.entries(statuses).sort((a, b) => a[0].localeCompare(b[0])).map(([status, count]) => `${status}: ${count}`).join(', ') || '–';

export const loginFloodSectionHeading = '## Login flood against a three-node cluster: password hashing queue off and on';

export function loginFloodSummary(run: LoginFloodRun): string {
  const { machine } = run;
  const flood = run.variants[0]?.phases.find((phase) => phase.phase === 'flood');
  const quiet = run.variants[0]?.phases.find((phase) => phase.phase === 'quiet');
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.os}, Node ${machine.node}, ${run.wrkVersion}; load average ${machine.loadAverage.toFixed(2)} at start.`,
    'Three controller processes on this machine, formed with `cluster.add` (bench/edgeward-cluster.ts), one fresh cluster per variant, in one run;',
    `raft electionTimeout ${run.raftTimeouts.electionTimeoutMs} ms, heartbeatTimeout ${run.raftTimeouts.heartbeatTimeoutMs} ms, commitTimeout ${run.raftTimeouts.commitTimeoutMs} ms (the defaults).`,
    `Steady writes: ${run.writeRate} identity creations/s through the leader and as many through a follower (\`POST /edge/management/v1/identities\`; the follower forwards them to the leader), paced, none waiting for another, for ${quiet ? `${quiet.seconds} s quiet and then` : ''} the ${flood ? `${flood.seconds} s` : ''} flood.`,
    `Flood: wrk, ${run.threads} threads, ${run.floodConnections} connections of correct password logins against the leader (\`POST /edge/client/v1/authenticate?method=password\`; each success is an API session, a raft write).`,
    'Elections are term increases seen by polling every controller\'s agent `status` every 250 ms; commit timeouts are writes answered 503 TIMEOUT (the proposal timed out) or not answered within 15 s.',
    'wrk ignores `Retry-After`: with the queue on, each refused login is retried at once, so the leader answers thousands of 429s a second; writes through the leader then wait on its busy HTTP side, while writes through a follower show what raft itself does.',
    `Password hashing queue (\`edge.passwordHashing\`) by variant: ${run.variants.map((variant) => `**${variant.name}**, ${variant.description}`).join('; ')}.`,
    '',
    '| Hash queue | Phase | s | CPU busy | Elections | Leader changes | Unanswered polls | Writes via leader | p50 (ms) | p99 (ms) | Writes via follower | p50 (ms) | p99 (ms) | Logins (200)/s | Login p99 (ms) | Login answers | Login socket errors |',
    '|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---|---:|',
  ];
  for (const variant of run.variants) {
    for (const phase of variant.phases) {
      const logins = phase.logins;
      const loginsOk = logins?.statuses?.['200'];
      lines.push(
        `| ${variant.name} | ${phase.phase} | ${phase.seconds} | ${fixed(phase.cpuBusy * 100)}% | ${phase.elections} | ${phase.leaderChanges} | ${phase.unansweredPolls} | ${outcomesText(phase.writes.outcomes)} | ${fixed(phase.writes.p50Ms, 1)} | ${fixed(phase.writes.p99Ms, 1)} | ${outcomesText(phase.followerWrites.outcomes)} | ${fixed(phase.followerWrites.p50Ms, 1)} | ${fixed(phase.followerWrites.p99Ms, 1)} | ${logins && loginsOk !== undefined ? fixed(loginsOk / logins.durationSeconds, 1) : '–'} | ${logins ? fixed(logins.p99Ms) : '–'} | ${statusesText(logins?.statuses)} | ${logins ? logins.socketErrors : '–'} |`,
      );
    }
  }
  lines.push('');
  for (const variant of run.variants) {
    const verdict = floodVerdict(variant);
    if (!verdict) continue;
    lines.push(
      `Hash queue ${variant.name} (${variant.description}), during the flood: ${verdict.elections} election${verdict.elections === 1 ? '' : 's'}, ${verdict.commitTimeouts} commit timeout${verdict.commitTimeouts === 1 ? '' : 's'}. Target (the issue's): none of either: **${verdict.met ? 'met' : 'not met'}**.`,
    );
  }
  return lines.join('\n');
}

export function renderLoginFloodSection(previous: string | undefined, run: LoginFloodRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'login-flood', loginFloodSectionHeading, loginFloodSummary(run));
}
