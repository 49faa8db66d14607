import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashboardBenchSection, endpointSummary, median } from './dashboard-bench-report.ts';
import type { DashboardBenchRun } from './dashboard-bench-report.ts';
import { replaceSection } from './raft-bench-report.ts';
import type { WrkFigures } from './wrk-output.ts';

const figures = (p50Ms: number, p99Ms: number, requestsPerSecond = 500): WrkFigures => ({
  requests: requestsPerSecond * 10,
  durationSeconds: 10,
  requestsPerSecond,
  p50Ms,
  p90Ms: p99Ms * 0.8,
  p99Ms,
  maxMs: p99Ms * 2,
  bytes: 1e6,
  httpErrors: 0,
  socketErrors: 0,
});

const run: DashboardBenchRun = {
  date: '2026-11-26T12:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', wrk: 'wrk 4.1.0', chromium: 'Chromium 156', loadAverage: 1.5 },
  identities: { count: 100_123, seconds: 41.2, connections: 32 },
  buildSeconds: 31.4,
  body: { bytes: 400 * 1024, historyPoints: 600, pollIntervalMs: 100 },
  load: { connections: [1, 8], threads: 2, seconds: 10 },
  rounds: [
    { connections: 1, page: figures(1, 2), bare: figures(0.5, 1) },
    { connections: 8, page: figures(3, 12), bare: figures(2, 8) },
    { connections: 1, page: figures(1, 3), bare: figures(0.5, 1) },
    { connections: 8, page: figures(4, 60), bare: figures(2, 9) },
    { connections: 1, page: figures(1, 2), bare: figures(0.5, 1) },
    { connections: 8, page: figures(3, 14), bare: figures(2, 7) },
  ],
  paints: [
    { firstPaintMs: 120, firstContentfulPaintMs: 130, responseStartMs: 40, domContentLoadedMs: 150 },
    { firstPaintMs: 100, firstContentfulPaintMs: 110, responseStartMs: 30, domContentLoadedMs: 140 },
    { firstPaintMs: 140, firstContentfulPaintMs: 150, responseStartMs: 50, domContentLoadedMs: 160 },
  ],
};

test('medians and the p99 ratio over the rounds', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(median([]), 0);
  assert.deepEqual(endpointSummary(run.rounds.filter((round) => round.connections === 8)), { pageP99: 14, bareP99: 8, ratio: 1.75, pageP50: 3, bareP50: 2 });
});

test('the section: every round, the verdict against 50 ms, the paints, and it replaces only its own markers', () => {
  const section = dashboardBenchSection(run);
  assert.match(section, /100,123 identities/);
  assert.match(section, /\| 2 \| 8 \| status page `\/api\/state` \| 500 \| 4\.00 \| 60\.00 \|/);
  assert.match(section, /\| 3 \| 1 \| bare node:http, same bytes \| 500 \| 0\.50 \| 1\.00 \|/);
  assert.match(section, /8 connection\(s\), median p99: status page \*\*14\.00 ms\*\*, bare server 8\.00 ms; ratio \*\*1\.75\*\*/);
  assert.match(section, /1 connection\(s\), median p99: status page \*\*2\.00 ms\*\*/);
  assert.match(section, /Target p99 ≤ 50 ms, judged at 8 connections: \*\*met\*\*/);
  assert.match(section, /\| first contentful paint \| 130 \| 130, 110, 150 \|/);
  assert.match(section, /took 31\.4 s/);
  const slow = dashboardBenchSection({ ...run, rounds: run.rounds.map((round) => (round.connections === 8 ? { ...round, page: figures(30, 80) } : round)) });
  assert.match(slow, /\*\*not met\*\*/);
  const document = replaceSection('# Benchmark results\n\n<!-- raft-bench:start -->\nraft\n<!-- raft-bench:end -->\n', 'dashboard', '## Status page', section);
  assert.match(document, /<!-- raft-bench:start -->\nraft\n<!-- raft-bench:end -->/);
  assert.match(document, /<!-- dashboard-bench:start -->\n## Status page\n\nDate: 2026-11-26T12:00:00Z/);
});
