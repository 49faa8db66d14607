import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pushSummary, renderPushSection, variantSummary, type PushRound, type PushRun } from './edge-model-push-report.ts';

const round = (index: number, variant: 'whole' | 'deltas', modelBytes: number, cpuSeconds: number, settleMs: number[]): PushRound => ({
  round: index, variant, routers: 100, connected: 100, changes: 2, modelBytes, cpuSeconds, peakRssBytes: (200 + index) * 2 ** 20, rssBeforeBytes: 150 * 2 ** 20, settleMs,
});

const run: PushRun = {
  date: '2026-11-30T03:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', loadAverage: 1.5, loadAverageAtEnd: 2.5 },
  commit: 'abc1234',
  model: { services: 2000, servicePolicies: 2500, edgeRouterPolicies: 2500 },
  wholeModelBytes: 1_000_000,
  rounds: [round(1, 'whole', 200_000_000, 4, [1200, 1400]), round(2, 'deltas', 60_000, 0.2, [1100, 1050]), round(3, 'whole', 200_000_000, 6, [1300, 1500]), round(4, 'deltas', 60_000, 0.5, [1000, 1080])],
};

test('per variant: bytes per router per change, CPU per change over every round, the highest RSS, the median settle', () => {
  assert.deepEqual(variantSummary(run.rounds, 'whole'), { bytesPerRouterPerChange: 1_000_000, cpuMsPerChange: 2500, peakRssMiB: 203, settleMsMedian: 1350 });
  assert.deepEqual(variantSummary(run.rounds, 'deltas'), { bytesPerRouterPerChange: 300, cpuMsPerChange: 175, peakRssMiB: 204, settleMsMedian: 1065 });
  assert.equal(variantSummary([], 'deltas'), undefined);
});

test('the section gives both variants, the ratios of deltas to whole models and every round, inside its markers', () => {
  const section = renderPushSection('# Results\n', run);
  assert.match(section, /<!-- edge-model-push-bench:start -->/);
  assert.match(section, /\| the whole model \(baseline\) \| 1000000 \| 2500\.0 \| 203 \| 1350 \|/);
  assert.match(section, /\| deltas \| 300 \| 175\.0 \| 204 \| 1065 \|/);
  assert.match(section, /bytes per router per change \*\*0\.0003x\*\*, controllers' CPU per change \*\*0\.0700x\*\*/);
  assert.match(section, /round 4 \(deltas, 100 of 100 connected, 2 changes\): 300 B per router per change, CPU 250\.0 ms per change/);
  assert.equal(renderPushSection(section, run), section, 'a second run replaces the section');
  assert.match(pushSummary(run), /300 against 1000000 \(0\.0003x\)/);
});
