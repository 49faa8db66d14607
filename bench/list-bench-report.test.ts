import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listSummary, querySummary, renderListSection, type ListRun, type QueryFigures } from './list-bench-report.ts';

const query = (request: string, baseline: boolean, targeted: boolean, rounds: number[][], totalCount?: number): QueryFigures => ({
  request,
  baseline,
  targeted,
  ...(totalCount === undefined ? {} : { totalCount }),
  rounds: rounds.map((ms, i) => ({ round: i + 1, ms, cpuSeconds: ms.reduce((a, b) => a + b, 0) / 2000, failed: 0 })),
});

const run: ListRun = {
  date: '2026-11-30T00:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', loadAverage: 3, loadAverageAtEnd: 4 },
  commit: 'abc1234',
  identities: 1_000_000,
  loadSeconds: { backup: 20, restore: 25, start: 40 },
  rssBytes: 900 * 1024 * 1024,
  heapUsedBytes: 300 * 1024 * 1024,
  afterStart: { rssBytes: 1200 * 1024 * 1024, heapUsedBytes: 700 * 1024 * 1024 },
  requestsPerRound: 4,
  queries: [
    query('GET /identities/<id>', true, false, [[2, 2, 2, 2], [2, 2, 2, 3]]),
    query('GET /identities?filter=name contains "-4242"&limit=25', false, true, [[40, 41, 42, 45], [30, 30, 30, 60]], 100),
    query('GET /identities?filter=name = "x"', false, true, [[4, 4, 4, 4], [4, 4, 4, 4]], 1),
  ],
};

test('a query summary: percentiles over every round, each round p99, CPU per request', () => {
  const summary = querySummary(run.queries[1]!);
  assert.equal(summary.requests, 8);
  assert.equal(summary.p50Ms, 40);
  assert.equal(summary.p99Ms, 60);
  assert.deepEqual(summary.roundP99Ms, [45, 60]);
  // cpuSeconds per round is half the wall time: 318 ms / 2 over 8 requests.
  assert.equal(summary.cpuMsPerRequest.toFixed(2), (318 / 2 / 8).toFixed(2));
});

test('the table: ratio to the baseline p50, the target verdict only for filtered lists, matches', () => {
  const text = listSummary(run);
  assert.match(text, /\| `GET \/identities\/<id>` \(baseline\) \| – \| 2\.00 \| 3\.00 \| 2\.00, 3\.00 \| 1\.06 \| 1\.0x \| – \|/);
  assert.match(text, /name contains "-4242"&limit=25` \| 100 \| 40\.0 \| 60\.0 \| 45\.0, 60\.0 \| [\d.]+ \| 20\.0x \| not met \|/);
  assert.match(text, /name = "x"` \| 1 \| 4\.00 \| 4\.00 \| 4\.00, 4\.00 \| 2\.00 \| 2\.0x \| met \|/);
  assert.match(text, /1,000,000 identities/);
  assert.match(text, /RSS 1200 MiB, V8 heap used 700 MiB after the start; RSS 900 MiB, V8 heap used 300 MiB after the lists\./);
});

test('the section replaces its own markers only and keeps the notes', () => {
  const previous = '# Benchmark results\n\n<!-- other-bench:start -->\nother\n<!-- other-bench:end -->\n\n<!-- list-bench:start -->\nold\n<!-- list-bench:end -->\n';
  const next = renderListSection(previous, run, 'notes here');
  assert.match(next, /<!-- other-bench:start -->\nother\n<!-- other-bench:end -->/);
  assert.doesNotMatch(next, /\nold\n/);
  assert.match(next, /<!-- list-bench:start -->\n## Lists[^\n]*\n\nRun [\s\S]*notes here\n<!-- list-bench:end -->/);
});

test('the first requests: the slowest ticker read during and after each, and the request again after the window', () => {
  const text = listSummary({ ...run, firstBuilds: [{ request: 'GET /identities?sort=name', firstMs: 1500, longestDuringMs: 1490, longestAfterMs: 42.5, tickerP50Ms: 3, windowSeconds: 20, secondMs: 12 }] });
  assert.match(text, /\| `GET \/identities\?sort=name` \| 1500 \| 1490 \| 42\.5 \(20 s\) \| 3\.00 \| 12\.0 \|/);
  assert.doesNotMatch(listSummary(run), /First requests/);
});
