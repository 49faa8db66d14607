import assert from 'node:assert/strict';
import { test } from 'node:test';
import { circuitRateSummary, meetsTarget, median, renderCircuitRateSection, roundRatios, type CircuitPathName, type CircuitRateRun, type CircuitRateSample } from './circuit-rate-bench-report.ts';
import { markedSections } from './raft-bench-report.ts';

/** Connections per second per path at 8 and 32 loops in round 1 (round 2 is 10% more, round 3 10% less). */
const rates: Record<CircuitPathName, [number, number]> = { socat: [2000, 2400], tunnel: [1100, 1300], sdk: [600, 700] };
const p99s: Record<CircuitPathName, [number, number]> = { socat: [5, 20], tunnel: [15, 40], sdk: [30, 80] };
const roundFactor = [1, 1.1, 0.9];

function run(): CircuitRateRun {
  const samples: CircuitRateSample[] = [];
  for (let round = 1; round <= 3; round++) {
    for (const [index, concurrency] of [8, 32].entries()) {
      for (const path of ['socat', 'tunnel', 'sdk'] as const) {
        const perSecond = rates[path][index]! * roundFactor[round - 1]!;
        samples.push({
          round, path, concurrency, completed: perSecond * 10, failed: path === 'sdk' && round === 2 ? 3 : 0, perSecond, p50Ms: p99s[path][index]! / 4, p99Ms: p99s[path][index]!, maxMs: p99s[path][index]! * 2,
          cpuMsPerConnection: path === 'socat' ? { socat: 1 } : { controller: 0.5, r1: 0.8, r2: 0.4 },
          ...(path === 'sdk' && round === 2 ? { firstFailure: 'closed after 0 of 64 echoed bytes' } : {}),
        });
      }
    }
  }
  return {
    date: '2026-11-29T21:00:00Z', label: 'test', machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', loadAverage: 1 }, socatVersion: 'socat 1.7.4.4', rounds: 3, seconds: 10, concurrencies: [8, 32],
    model: { identities: 100000, identitySeconds: 100, edgeRouters: 5000, edgeRouterSeconds: 50, services: 2000, servicePolicies: 2500, edgeRouterPolicies: 2500, policySeconds: 70, policiesPerDialer: 51 },
    orders: [['socat', 'tunnel', 'sdk'], ['tunnel', 'sdk', 'socat'], ['sdk', 'socat', 'tunnel']],
    samples,
  };
}

test('each round compares a path with socat in the same round', () => {
  assert.deepEqual(roundRatios(run(), 'tunnel', 8).map((ratio) => ratio.toFixed(3)), ['0.550', '0.550', '0.550']);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
});

test('the target needs both the rate and the p99 at one concurrency', () => {
  // tunnel: 1,100/s with p99 15 ms at 8 loops meets it; 1,300/s at 32 has p99 40 ms.
  assert.deepEqual(meetsTarget(run(), 'tunnel'), { met: true, best: { concurrency: 8, perSecond: 1100, p99Ms: 15 } });
  assert.deepEqual(meetsTarget(run(), 'sdk'), { met: false, best: { concurrency: 32, perSecond: 700, p99Ms: 80 } });
});

test('the section shows medians, ratios, every round, failures and verdicts, between its markers', () => {
  const text = circuitRateSummary(run());
  assert.match(text, /\| tunnel \| 8 \| 1100 \| 0\.55 \| 3\.8 \| 15\.0 \| 30 \| 0 \| controller 0\.50, r1 0\.80, r2 0\.40 \|/);
  assert.match(text, /\| sdk \| 8 \| 600 \| 0\.30 \|.*\| 3 \|/);
  assert.match(text, /\| 2 \| tunnel → sdk → socat \| sdk \| 8 \| 660 \| 0\.30 \| 7\.5 \| 30\.0 \| 3 \(closed after 0 of 64 echoed bytes\) \|/);
  assert.match(text, /100000 identities \(1000\/s\), 5000 edge routers/);
  assert.match(text, /- tunnel: target ≥ 1000 circuits\/s with p99 setup ≤ 20 ms: \*\*met\*\*/);
  assert.match(text, /- sdk: target .*\*\*not met\*\* \(best: 700\/s with p99 80\.0 ms at 32 loops\)/);
  const previous = '# Benchmark results\n\n<!-- overlay-bench:start -->\nkept\n<!-- overlay-bench:end -->\n';
  const document = renderCircuitRateSection(previous, run());
  assert.equal(markedSections(document).length, 2);
  assert.match(document, /<!-- circuit-rate-bench:start -->\n## Circuit setup rate/);
  assert.equal(renderCircuitRateSection(document, run()), document, 'rendering again replaces the section');
});
