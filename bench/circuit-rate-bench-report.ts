// Pure helpers for bench/circuit-rate-bench.ts: every round's new-connection figures per path in, the text of the
// marked RESULTS.md section out: medians over the rounds of new connections per second and connect→echo p50/p99
// per path and concurrency, each overlay path's rate as a ratio of socat's in the same round, the CPU each process
// spent per circuit, and the verdict against the issue's target (≥ 1,000 circuits/s through one ingress router
// with p99 setup ≤ 20 ms).
import { replaceSection } from './raft-bench-report.ts';

/** The paths measured, in the order the tables show them. */
export const circuitPathNames = ['socat', 'tunnel', 'sdk'] as const;
export type CircuitPathName = (typeof circuitPathNames)[number];

export const circuitRateTarget = { perSecond: 1000, p99Ms: 20 } as const;

export interface CircuitRateSample {
  readonly round: number;
  readonly path: CircuitPathName;
  readonly concurrency: number;
  readonly completed: number;
  readonly failed: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** CPU ms per completed connection, by process (`controller`, `r1`, `r2`, `tunnel`, `socat`). */
  readonly cpuMsPerConnection: Readonly<Record<string, number>>;
  readonly firstFailure?: string;
}

export interface CircuitRateModel {
  readonly identities: number;
  readonly identitySeconds: number;
  readonly edgeRouters: number;
  readonly edgeRouterSeconds: number;
  readonly services: number;
  readonly servicePolicies: number;
  readonly edgeRouterPolicies: number;
  readonly policySeconds: number;
  /** Service policies (of every kind) the dialing identities' attributes select. */
  readonly policiesPerDialer: number;
}

export interface CircuitRateRun {
  readonly date: string;
  readonly label: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly loadAverage: number };
  readonly socatVersion: string;
  readonly rounds: number;
  readonly seconds: number;
  readonly concurrencies: readonly number[];
  readonly model: CircuitRateModel;
  readonly orders: readonly (readonly CircuitPathName[])[];
  readonly samples: readonly CircuitRateSample[];
}

const pathLabels: Readonly<Record<CircuitPathName, string>> = {
  socat: 'socat (a forked relay per connection; the baseline)',
  tunnel: "r1's proxy-mode tunnel listener → link → r2 → echo (one `circuit.create` as r1's identity)",
  sdk: "`./edgeward tunnel run`'s proxy port → SDK Connect at r1's edge listener → link → r2 → echo (one `circuit.create` with the identity's API session)",
};

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function samplesOf(run: CircuitRateRun, path: CircuitPathName, concurrency: number): CircuitRateSample[] {
  return run.samples.filter((sample) => sample.path === path && sample.concurrency === concurrency);
}

/** The path's rate over socat's, per round (rounds where both were measured). */
export function roundRatios(run: CircuitRateRun, path: CircuitPathName, concurrency: number): number[] {
  const ratios: number[] = [];
  for (let round = 1; round <= run.rounds; round++) {
    const mine = run.samples.find((sample) => sample.round === round && sample.path === path && sample.concurrency === concurrency);
    const socat = run.samples.find((sample) => sample.round === round && sample.path === 'socat' && sample.concurrency === concurrency);
    if (mine && socat && socat.perSecond > 0) ratios.push(mine.perSecond / socat.perSecond);
  }
  return ratios;
}

/** Whether a path meets the issue's target at some measured concurrency: its medians of rate and p99. */
export function meetsTarget(run: CircuitRateRun, path: CircuitPathName): { readonly met: boolean; readonly best?: { concurrency: number; perSecond: number; p99Ms: number } } {
  let best: { concurrency: number; perSecond: number; p99Ms: number } | undefined;
  for (const concurrency of run.concurrencies) {
    const samples = samplesOf(run, path, concurrency);
    if (samples.length === 0) continue;
    const figures = { concurrency, perSecond: median(samples.map((s) => s.perSecond)), p99Ms: median(samples.map((s) => s.p99Ms)) };
    const meets = figures.perSecond >= circuitRateTarget.perSecond && figures.p99Ms <= circuitRateTarget.p99Ms;
    if (meets) return { met: true, best: figures };
    if (!best || figures.perSecond > best.perSecond) best = figures;
  }
  return best ? { met: false, best } : { met: false };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

function cpuText(samples: readonly CircuitRateSample[]): string {
  const names = [...new Set(samples.flatMap((sample) => Object.keys(sample.cpuMsPerConnection)))].sort();
  return names.map((name) => `${name} ${fixed(median(samples.map((s) => s.cpuMsPerConnection[name]).filter((v): v is number => v !== undefined)), 2)}`).join(', ') || '–';
}

export function circuitRateSummary(run: CircuitRateRun): string {
  const lines: string[] = [];
  const { model } = run;
  lines.push(
    `${run.date}, ${run.label}; ${run.machine.cpus} CPUs (${run.machine.cpuModel}), Node ${run.machine.node}, load average ${run.machine.loadAverage.toFixed(2)} at the start; ${run.socatVersion}. ` +
      `${run.rounds} rounds of ${run.seconds} s per path and concurrency, paths in rotating order; each connection: connect, 64 bytes written and echoed whole, close (bench/connection-rate-load.ts).`,
  );
  lines.push('');
  lines.push(
    `Model loaded through the management API: ${model.identities} identities (${fixed(model.identities / Math.max(model.identitySeconds, 0.001), 0)}/s), ${model.edgeRouters} edge routers with no process behind them (${fixed(model.edgeRouters / Math.max(model.edgeRouterSeconds, 0.001), 0)}/s), ` +
      `${model.services} services, ${model.servicePolicies} service policies and ${model.edgeRouterPolicies} edge router policies (${fixed((model.services + model.servicePolicies + model.edgeRouterPolicies) / Math.max(model.policySeconds, 0.001), 0)}/s); each dialing identity's attributes select ${model.policiesPerDialer} service policies.`,
  );
  lines.push('');
  lines.push('| path | concurrency | new connections/s (median) | × socat (median of rounds) | setup p50 ms | setup p99 ms | max ms | failed | CPU ms per connection (median) |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const concurrency of run.concurrencies) {
    for (const path of circuitPathNames) {
      const samples = samplesOf(run, path, concurrency);
      if (samples.length === 0) continue;
      const ratio = path === 'socat' ? '1' : fixed(median(roundRatios(run, path, concurrency)), 2);
      lines.push(
        `| ${path} | ${concurrency} | ${fixed(median(samples.map((s) => s.perSecond)), 0)} | ${ratio} | ${fixed(median(samples.map((s) => s.p50Ms)), 1)} | ${fixed(median(samples.map((s) => s.p99Ms)), 1)} | ${fixed(Math.max(...samples.map((s) => s.maxMs)), 0)} | ${samples.reduce((sum, s) => sum + s.failed, 0)} | ${cpuText(samples)} |`,
      );
    }
  }
  lines.push('');
  lines.push('Paths: ' + circuitPathNames.map((path) => `**${path}**: ${pathLabels[path]}`).join('; ') + '.');
  lines.push('');
  lines.push('Every round:');
  lines.push('');
  lines.push('| round | order | path | concurrency | connections/s | × socat | p50 ms | p99 ms | failed | CPU ms per connection |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const sample of run.samples) {
    const socat = run.samples.find((s) => s.round === sample.round && s.path === 'socat' && s.concurrency === sample.concurrency);
    const ratio = sample.path === 'socat' ? '1' : socat && socat.perSecond > 0 ? fixed(sample.perSecond / socat.perSecond, 2) : '–';
    const order = run.orders[sample.round - 1]?.join(' → ') ?? '';
    lines.push(
      `| ${sample.round} | ${order} | ${sample.path} | ${sample.concurrency} | ${fixed(sample.perSecond, 0)} | ${ratio} | ${fixed(sample.p50Ms, 1)} | ${fixed(sample.p99Ms, 1)} | ${sample.failed}${sample.firstFailure ? ` (${sample.firstFailure.replace(/\|/g, '/').slice(0, 80)})` : ''} | ${cpuText([sample])} |`,
    );
  }
  lines.push('');
  for (const path of ['tunnel', 'sdk'] as const) {
    const verdict = meetsTarget(run, path);
    const best = verdict.best ? ` (best: ${fixed(verdict.best.perSecond, 0)}/s with p99 ${fixed(verdict.best.p99Ms, 1)} ms at ${verdict.best.concurrency} loops)` : '';
    lines.push(`- ${path}: target ≥ ${circuitRateTarget.perSecond} circuits/s with p99 setup ≤ ${circuitRateTarget.p99Ms} ms: **${verdict.met ? 'met' : 'not met'}**${best}.`);
  }
  return lines.join('\n');
}

export const circuitRateSectionHeading = '## Circuit setup rate (new connections through one ingress router, against socat)';

export function renderCircuitRateSection(previous: string | undefined, run: CircuitRateRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', 'circuit-rate', circuitRateSectionHeading, circuitRateSummary(run));
}
