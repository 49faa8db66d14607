import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertsBenchSection, latencySummary, speedRatio } from './alerts-bench-report.ts';
import type { AlertsBenchRun } from './alerts-bench-report.ts';

const run: AlertsBenchRun = {
  date: '2026-11-26T00:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', grep: 'GNU grep 3.8', alertmanager: 'Alertmanager 0.25.0', loadAverage: 1.5 },
  file: { bytes: 512 * 1024 * 1024, lines: 2_700_000, matchingLines: 2700, patterns: 15 },
  rounds: [
    { grepSeconds: 1, daemonSeconds: 2 },
    { grepSeconds: 1.2, daemonSeconds: 1.5 },
    { grepSeconds: 1, daemonSeconds: 4 },
  ],
  latenciesMs: Array.from({ length: 200 }, (_, index) => index + 1),
};

describe('alerts bench report', () => {
  it('takes the ratio as grep time over daemon time, so above 1 means faster than grep', () => {
    assert.equal(speedRatio({ grepSeconds: 2, daemonSeconds: 1 }), 2);
  });

  it('summarises latencies by percentile', () => {
    assert.deepEqual(latencySummary(run.latenciesMs), { p50: 100, p99: 198, max: 200 });
  });

  it('writes the rounds, the median ratio and both verdicts', () => {
    const text = alertsBenchSection(run);
    assert.match(text, /\| 2 \| 1\.20 \| 427 \| 1\.50 \| 341 \| 0\.80 \|/);
    assert.match(text, /Median speed ratio: \*\*0\.50\*\*\. Target ≥ 0\.5× grep: \*\*met\*\*/);
    assert.match(text, /\| 200 \| 100\.0 \| 198\.0 \| 200\.0 \|/);
    assert.match(text, /Target p99 ≤ 1000 ms: \*\*met\*\*/);
    assert.match(alertsBenchSection({ ...run, latenciesMs: [5, 1500] }), /Target p99 ≤ 1000 ms: \*\*not met\*\*/);
  });
});
