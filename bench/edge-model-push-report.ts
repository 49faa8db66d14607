// The edge model push benchmark's report (bench/edge-model-push-bench.ts): per variant (routers sent the whole model
// on every change, the baseline; routers sent deltas), the bytes each router received per change, the controllers'
// CPU per change, their peak RSS and the time until the last router had the change, every round listed, and the
// ratios of deltas to whole models. Pure: figures in, markdown out.
import { median } from './dashboard-bench-report.ts';
import { replaceSection } from './raft-bench-report.ts';

export type PushVariant = 'whole' | 'deltas';

export interface PushRound {
  readonly round: number;
  readonly variant: PushVariant;
  readonly routers: number;
  /** Routers connected when the changes were made. */
  readonly connected: number;
  readonly changes: number;
  /** Bytes of `ctrl.edgeModel` and `ctrl.edgeModelDelta` every router received over the changes (welcomes excluded). */
  readonly modelBytes: number;
  /** The three controllers' CPU seconds from the first change until the last router had the last one. */
  readonly cpuSeconds: number;
  /** The highest RSS any controller had meanwhile, and each's before the changes. */
  readonly peakRssBytes: number;
  readonly rssBeforeBytes: number;
  /** From each change's answer to the last model byte any router received for it, in ms. */
  readonly settleMs: readonly number[];
}

export interface PushRun {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly loadAverage: number; readonly loadAverageAtEnd: number };
  readonly commit: string;
  readonly model: { readonly services: number; readonly servicePolicies: number; readonly edgeRouterPolicies: number };
  readonly wholeModelBytes: number | undefined;
  readonly rounds: readonly PushRound[];
}

export interface VariantSummary {
  readonly bytesPerRouterPerChange: number;
  readonly cpuMsPerChange: number;
  readonly peakRssMiB: number;
  readonly settleMsMedian: number;
}

export function variantSummary(rounds: readonly PushRound[], variant: PushVariant): VariantSummary | undefined {
  const mine = rounds.filter((round) => round.variant === variant);
  if (mine.length === 0) return undefined;
  const changes = mine.reduce((sum, round) => sum + round.changes, 0);
  const routerChanges = mine.reduce((sum, round) => sum + round.changes * round.connected, 0);
  return {
    bytesPerRouterPerChange: routerChanges === 0 ? 0 : mine.reduce((sum, round) => sum + round.modelBytes, 0) / routerChanges,
    cpuMsPerChange: changes === 0 ? 0 : (mine.reduce((sum, round) => sum + round.cpuSeconds, 0) * 1000) / changes,
    peakRssMiB: Math.max(...mine.map((round) => round.peakRssBytes)) / 2 ** 20,
    settleMsMedian: median(mine.flatMap((round) => round.settleMs)),
  };
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
const ratio = (value: number, baseline: number) => (baseline === 0 ? 'n/a' : `${fixed(value / baseline, 4)}x`);

export function pushSummary(run: PushRun): string {
  const whole = variantSummary(run.rounds, 'whole');
  const deltas = variantSummary(run.rounds, 'deltas');
  if (!whole || !deltas) return 'edge model push: a variant has no round';
  return `edge model push at ${run.rounds[0]?.routers ?? 0} routers a round: bytes per router per change ${fixed(deltas.bytesPerRouterPerChange, 0)} against ${fixed(whole.bytesPerRouterPerChange, 0)} (${ratio(deltas.bytesPerRouterPerChange, whole.bytesPerRouterPerChange)}); controllers' CPU per change ${fixed(deltas.cpuMsPerChange)} ms against ${fixed(whole.cpuMsPerChange)} ms (${ratio(deltas.cpuMsPerChange, whole.cpuMsPerChange)})`;
}

export function renderPushSection(previous: string | undefined, run: PushRun): string {
  const whole = variantSummary(run.rounds, 'whole');
  const deltas = variantSummary(run.rounds, 'deltas');
  const row = (name: string, summary: VariantSummary | undefined) =>
    summary ? `| ${name} | ${fixed(summary.bytesPerRouterPerChange, 0)} | ${fixed(summary.cpuMsPerChange)} | ${fixed(summary.peakRssMiB, 0)} | ${fixed(summary.settleMsMedian, 0)} |` : `| ${name} | — | — | — | — |`;
  const lines = [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), Node ${run.machine.node}; load average ${fixed(run.machine.loadAverage, 2)} at start, ${fixed(run.machine.loadAverageAtEnd, 2)} at the end. Commit ${run.commit}.`,
    `How measured: a three-controller cluster holding ${run.model.services} services, ${run.model.servicePolicies} service policies and ${run.model.edgeRouterPolicies} edge router policies (bench/router-sim-model.ts); in each round a fresh set of simulated routers (bench/router-simulator.ts) is enrolled and connected, spread over the three controllers, saying \`edgeModelDeltas\` in their hello (deltas) or not (whole: the baseline, as routers of earlier versions); then services are created one at a time, each once the last had reached every router, so that each makes one push. Rounds alternate between the two; a round's routers stay in the model after it (so the whole model grows a little each round). Bytes: \`ctrl.edgeModel\` and \`ctrl.edgeModelDelta\` bytes the routers received after their welcome. CPU: user + system of the three controllers from the first change until the last router had the last one. Settle: from a create's answer to the last model byte any router received for it (the push is debounced 1 s).`,
    run.wholeModelBytes !== undefined ? `The whole model's frame was ${run.wholeModelBytes} bytes (a welcome's, as a router received it).` : '',
    '',
    '| Routers sent | Bytes per router per change | Controllers\' CPU per change (ms) | Peak controller RSS (MiB) | Settle, median (ms) |',
    '|---|---:|---:|---:|---:|',
    row('the whole model (baseline)', whole),
    row('deltas', deltas),
    '',
    whole && deltas
      ? `Deltas against whole models: bytes per router per change **${ratio(deltas.bytesPerRouterPerChange, whole.bytesPerRouterPerChange)}**, controllers' CPU per change **${ratio(deltas.cpuMsPerChange, whole.cpuMsPerChange)}**, settle ${ratio(deltas.settleMsMedian, whole.settleMsMedian)}.`
      : '',
    '',
    'By round: ' +
      run.rounds
        .map((round) => `round ${round.round} (${round.variant}, ${round.connected} of ${round.routers} connected, ${round.changes} changes): ${fixed(round.modelBytes / Math.max(1, round.changes * round.connected), 0)} B per router per change, CPU ${fixed((round.cpuSeconds * 1000) / Math.max(1, round.changes))} ms per change, peak RSS ${fixed(round.peakRssBytes / 2 ** 20, 0)} MiB (${fixed(round.rssBeforeBytes / 2 ** 20, 0)} before), settle ${round.settleMs.map((ms) => fixed(ms, 0)).join('/')} ms`)
        .join('; ') +
      '.',
  ].filter((line, index, all) => line !== '' || all[index - 1] !== '');
  return replaceSection(previous ?? '', 'edge-model-push', '## Edge model pushes: whole models against deltas (`bench/run.sh edge-model-push`)', lines.join('\n'));
}
