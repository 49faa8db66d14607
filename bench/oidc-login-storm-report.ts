// The OIDC login storm's figures and its section of bench/RESULTS.md: per round, cert logins per second through the
// whole OIDC flow and through legacy `POST /authenticate?method=cert`, the raft commands each login cost, and the p99
// of the management writes sent meanwhile. Pure: the run in, text out.
import { percentile, replaceSection } from './raft-bench-report.ts';

export type LoginKind = 'legacy' | 'oidc';

export interface StormMeasurement {
  readonly kind: LoginKind;
  readonly seconds: number;
  readonly logins: number;
  readonly failures: number;
  /** The first few failures' text, to say what went wrong. */
  readonly failureSamples: readonly string[];
  readonly loginP50Ms: number;
  readonly loginP99Ms: number;
  /** The leader's raft applied index went up by this much over the measurement (writes included). */
  readonly raftApplied: number;
  /** Management writes answered 201 meanwhile: one raft command each. */
  readonly writesCommitted: number;
  readonly writesSent: number;
  readonly writeP99Ms: number;
  /** CPU seconds the leader's process used over the measurement (all its threads); undefined without /proc. */
  readonly leaderCpuSeconds?: number;
}

export interface StormRound {
  readonly round: number;
  readonly legacy: StormMeasurement;
  readonly oidc: StormMeasurement;
  readonly first: LoginKind;
}

export interface StormRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly concurrency: number;
  readonly writeRate: number;
  readonly loginController: string;
  readonly rounds: readonly StormRound[];
}

export const loginsPerSecond = (measurement: StormMeasurement) => measurement.logins / measurement.seconds;

/** Raft commands per login: what the leader applied beyond the management writes, over the logins. */
export function commandsPerLogin(measurement: StormMeasurement): number {
  if (measurement.logins === 0) return 0;
  return Math.max(0, measurement.raftApplied - measurement.writesCommitted) / measurement.logins;
}

/** The leader's CPU per login in milliseconds (writes included: the same rate in both flows), or undefined. */
export function leaderCpuMsPerLogin(measurement: StormMeasurement): number | undefined {
  if (measurement.leaderCpuSeconds === undefined || measurement.logins === 0) return undefined;
  return (measurement.leaderCpuSeconds * 1000) / measurement.logins;
}

export const roundRatio = (round: StormRound) => loginsPerSecond(round.oidc) / Math.max(1e-9, loginsPerSecond(round.legacy));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return percentile(sorted, 0.5);
}

export const medianRatio = (run: StormRun) => median(run.rounds.map(roundRatio));

const fixed = (value: number, digits: number) => value.toFixed(digits);

function row(round: StormRound, measurement: StormMeasurement): string {
  const what = measurement.kind === 'oidc' ? 'OIDC: authorize → `POST /oidc/login/cert` → callback → `POST /oidc/oauth/token`' : 'legacy: `POST /authenticate?method=cert`';
  return `| ${round.round} | ${what} | ${fixed(loginsPerSecond(measurement), 1)} | ${measurement.logins} | ${measurement.failures} | ${fixed(measurement.loginP50Ms, 1)} | ${fixed(measurement.loginP99Ms, 1)} | ${measurement.raftApplied} | ${fixed(commandsPerLogin(measurement), 2)} | ${measurement.writesCommitted}/${measurement.writesSent} | ${fixed(measurement.writeP99Ms, 1)} | ${leaderCpuMsPerLogin(measurement)?.toFixed(2) ?? 'n/a'} |`;
}

export function stormSummary(run: StormRun): string {
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}; load average ${fixed(run.machine.loadAverage, 2)} at start.`,
    `Three controllers on loopback (TLS, raft defaults); every login against ${run.loginController} (the leader) with one enrolled certificate identity, ${run.concurrency} logins in flight at once, each login on a keep-alive mutual-TLS connection of a pool; meanwhile ${run.writeRate} management writes/s (\`POST /edge/management/v1/identities\`) through the leader, each timed.`,
    'Legacy and OIDC take turns in each round (the first alternates), so a slow spell of this shared machine hits both. A login counts when its last answer is right: 200 with a `zt-session` token (legacy), 200 with an access token (OIDC, scope `openid offline_access`, so a refresh token too).',
    'Leader CPU per login: user + system time of the leader\'s process (every thread) over the measurement, over the logins; the writes are in it too, at the same rate for both flows.',
    'Raft commands per login: the rise of the leader\'s `edgeward_raft_applied_index` over the measurement, less the writes answered 201 (one command each), over the logins (periodic bookkeeping such as the session activity flush falls in too).',
    '',
    '| Round | Flow | Logins/s | Logins | Failed | p50 (ms) | p99 (ms) | Raft entries applied | Raft commands/login | Writes 201/sent | Write p99 (ms) | Leader CPU/login (ms) |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|',
  ];
  for (const round of run.rounds) {
    const order = round.first === 'legacy' ? [round.legacy, round.oidc] : [round.oidc, round.legacy];
    for (const measurement of order) lines.push(row(round, measurement));
  }
  const failures = run.rounds.flatMap((round) => [round.legacy, round.oidc]).filter((measurement) => measurement.failures > 0);
  lines.push('');
  lines.push(`By round, OIDC/legacy logins per second: ${run.rounds.map((round) => `round ${round.round}: ${fixed(roundRatio(round), 2)}`).join(', ')}.`);
  lines.push(`Ratio OIDC/legacy (median over the rounds): **${fixed(medianRatio(run), 2)}**.`);
  const oidcCommands = Math.max(...run.rounds.map((round) => commandsPerLogin(round.oidc)));
  const legacyCommands = median(run.rounds.map((round) => commandsPerLogin(round.legacy)));
  lines.push(`Raft commands per login: OIDC at most ${fixed(oidcCommands, 2)} (target: none: ${oidcCommands < 0.05 ? '**met**' : '**not met**'}), legacy ${fixed(legacyCommands, 2)} (median).`);
  lines.push(`Write p99 during the logins (median over the rounds): legacy ${fixed(median(run.rounds.map((round) => round.legacy.writeP99Ms)), 1)} ms, OIDC ${fixed(median(run.rounds.map((round) => round.oidc.writeP99Ms)), 1)} ms.`);
  if (failures.length > 0) lines.push(`Failures: ${failures.map((measurement) => `${measurement.kind}: ${measurement.failureSamples.join('; ')}`).join(' | ')}`);
  return lines.join('\n');
}

export const stormSectionHeading = '## OIDC login storm: OIDC cert logins against legacy cert logins';

export function renderStormSection(previous: string | undefined, run: StormRun, notes: string): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'oidc-login-storm', stormSectionHeading, `${stormSummary(run)}\n\n${notes}`);
}
