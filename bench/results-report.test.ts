import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markedSections, replaceSection } from './raft-bench-report.ts';
import { renderResults, type BenchRun, type HttpRound } from './results-report.ts';
import type { WrkFigures } from './wrk-output.ts';

const figures = (requestsPerSecond: number, bytesPerResponse = 200): WrkFigures => ({
  requests: requestsPerSecond * 10,
  durationSeconds: 10,
  requestsPerSecond,
  p50Ms: 4.5,
  p90Ms: 6,
  p99Ms: 9.25,
  maxMs: 20,
  bytes: requestsPerSecond * 10 * bytesPerResponse,
  httpErrors: 0,
  socketErrors: 0,
});

const round = (bareSession: number, session: number, cpu = { bareSession: 80, session: 100 }): HttpRound => ({
  bareSession: { label: '`GET /bare-session`', connections: 64, figures: figures(bareSession, 1020), serverCpuUsPerRequest: cpu.bareSession },
  session: { label: '`GET /edge/client/v1/current-api-session`', connections: 64, figures: figures(session, 1020), serverCpuUsPerRequest: cpu.session },
});

const run = (date: string, bare: number, bareSession: number, session: number): BenchRun => ({
  date,
  machine: { cpus: 2, cpuModel: 'Test CPU', node: 'v20.20.2', os: 'Linux 6.1', loadAverage: 0.25 },
  wrkVersion: 'wrk 4.1.0',
  threads: 2,
  seconds: 10,
  warmupSeconds: 2,
  steadyWarmupSeconds: 14,
  pinning: 'none',
  bare: { label: '`GET /bare`', connections: 64, figures: figures(bare, 180), serverCpuUsPerRequest: 40 },
  rounds: [round(bareSession, session)],
  login: { label: '`POST /edge/client/v1/authenticate?method=password`', connections: 16, figures: figures(42.5) },
});

test('each run replaces the table and states whether b/a and b/a′ met the target', () => {
  const first = renderResults(run('2025-01-01T00:00:00Z', 10_000, 6_000, 5_000), undefined);
  assert.match(first, /Ratio b\/a: \*\*0\.50\*\* \(the bare route's smaller response: for reference\)\./);
  assert.match(first, /Ratio b\/a′ \(same response bytes and headers, median over the rounds\): \*\*0\.83\*\*\. Target \(the issue's\): ≥ 0\.8 at 64 connections: \*\*met\*\*\./);
  const second = renderResults(run('2025-01-02T00:00:00Z', 10_000, 12_000, 8_000), first);
  assert.match(second, /Ratio b\/a: \*\*0\.80\*\*/);
  assert.match(second, /Ratio b\/a′ .*\*\*0\.67\*\*.*\*\*not met\*\*/);
  assert.doesNotMatch(second, /\*\*0\.50\*\*|\*\*0\.83\*\*/);
  assert.match(second, /\| a \| `GET \/bare` \| 64 \| 10000 \| 4\.50 \| 9\.25 \| 0 \| 0 \| 180 \| 40 \|/);
  assert.match(second, /\| a′ \| `GET \/bare-session` \| 64 \| 12000 \| 4\.50 \| 9\.25 \| 0 \| 0 \| 1020 \| 80 \|/);
  assert.match(second, /\| b \| `GET \/edge\/client\/v1\/current-api-session` \| 64 \| 8000 \| 4\.50 \| 9\.25 \| 0 \| 0 \| 1020 \| 100 \|/);
  assert.match(second, /\| c \| .* \| 16 \| 42\.5 \| .* \| 200 \| n\/a \|/);
  assert.match(second, /Server CPU per request a\/b 0\.40 \(40 µs vs 100 µs\), a′\/b 0\.80 \(80 µs vs 100 µs\);/);
});

test('rounds alternate: the table shows the round with the median b/a′, the verdict is on that median, and every round is listed', () => {
  const rounds = [round(6_000, 4_200, { bareSession: 150, session: 210 }), round(6_000, 5_400, { bareSession: 150, session: 170 }), round(5_000, 4_000, { bareSession: 160, session: 200 })];
  const text = renderResults({ ...run('2025-01-01T00:00:00Z', 10_000, 1, 1), rounds }, undefined);
  assert.match(text, /alternate in 3 rounds/);
  assert.match(text, /\| a′ \| `GET \/bare-session` \| 64 \| 5000 \|.* \| 160 \|/);
  assert.match(text, /\| b \| `GET \/edge\/client\/v1\/current-api-session` \| 64 \| 4000 \|.* \| 200 \|/);
  assert.match(text, /By round: round 1: a′ 6000\/s, b 4200\/s, b\/a′ 0\.70; CPU a′ 150 µs, b 210 µs; round 2: a′ 6000\/s, b 5400\/s, b\/a′ 0\.90; CPU a′ 150 µs, b 170 µs; round 3: a′ 5000\/s, b 4000\/s, b\/a′ 0\.80; CPU a′ 160 µs, b 200 µs\./);
  assert.match(text, /Ratio b\/a′ \(same response bytes and headers, median over the rounds\): \*\*0\.80\*\*\. .*\*\*met\*\*/);
  assert.match(text, /Ratio b\/a: \*\*0\.40\*\*/);
  assert.match(text, /a′\/b 0\.80 \(160 µs vs 200 µs\)/);
  const even = renderResults({ ...run('2025-01-01T00:00:00Z', 10_000, 1, 1), rounds: rounds.slice(0, 2) }, undefined);
  assert.match(even, /median over the rounds\): \*\*0\.70\*\*.*\*\*not met\*\*/, 'of two, the lower');
});

test('the history keeps one line per earlier run, oldest first, and appends this one with both ratios', () => {
  const first = renderResults(run('2025-01-01T00:00:00Z', 10_000, 6_000, 5_000), undefined);
  const second = renderResults(run('2025-01-02T00:00:00Z', 10_000, 12_000, 8_000), first);
  const history = second.slice(second.indexOf('## History')).split('\n').filter((line) => line.startsWith('- '));
  assert.deepEqual(history, [
    '- 2025-01-01T00:00:00Z: a 10000 rps, a′ 6000 rps, b 5000 rps, b/a 0.50, b/a′ 0.83, c 42.5 rps (2 CPUs, Node v20.20.2, 10 s, unpinned)',
    '- 2025-01-02T00:00:00Z: a 10000 rps, a′ 12000 rps, b 8000 rps, b/a 0.80, b/a′ 0.67, c 42.5 rps (2 CPUs, Node v20.20.2, 10 s, unpinned)',
  ]);
});

test('history lines in the older format are kept as they were', () => {
  const older = '# Benchmark results\n\n## History\n\n- 2024-12-31T00:00:00Z: a 9000 rps, b 4000 rps, b/a 0.44, c 40.0 rps (2 CPUs, Node v20.20.2, 10 s)\n';
  const next = renderResults(run('2025-01-01T00:00:00Z', 10_000, 6_000, 5_000), older);
  assert.match(next, /## History\n\n- 2024-12-31T00:00:00Z: a 9000 rps, b 4000 rps, b\/a 0\.44, c 40\.0 rps \(2 CPUs, Node v20\.20\.2, 10 s\)\n- 2025-01-01T00:00:00Z: /);
});

test('another benchmark\'s marked section survives an HTTP run, wherever it was, and stays out of the history', () => {
  const raftBody = '| Concurrent proposers | Raft proposals/s |\n|---:|---:|\n| 1 | 180 |\n- not a history line';
  // raft-bench.ts appends its section at the end, after the history, the first time it runs.
  const withRaft = replaceSection(renderResults(run('2025-01-01T00:00:00Z', 10_000, 6_000, 5_000), undefined), 'raft', '## Raft', raftBody);
  const section = markedSections(withRaft)[0]!;
  assert.ok(section.startsWith('<!-- raft-bench:start -->\n## Raft\n') && section.endsWith('<!-- raft-bench:end -->'));

  const second = renderResults(run('2025-01-02T00:00:00Z', 10_000, 12_000, 8_000), withRaft);
  assert.deepEqual(markedSections(second), [section]);
  assert.ok(second.indexOf(section) > second.indexOf('## Last run') && second.indexOf(section) < second.indexOf('## History'));
  const history = second.slice(second.indexOf('## History')).split('\n').filter((line) => line.startsWith('- '));
  assert.deepEqual(history.map((line) => line.slice(2, 22)), ['2025-01-01T00:00:00Z', '2025-01-02T00:00:00Z']);

  // Another HTTP run, and the raft benchmark replacing its section in place, each keep the rest.
  const third = renderResults(run('2025-01-03T00:00:00Z', 10_000, 12_000, 8_000), second);
  assert.deepEqual(markedSections(third), [section]);
  const raftAgain = replaceSection(third, 'raft', '## Raft', '| 1 | 200 |');
  assert.equal(markedSections(raftAgain).length, 1);
  assert.ok(raftAgain.includes('| 1 | 200 |') && !raftAgain.includes('| 1 | 180 |'));
  assert.equal(raftAgain.replace(markedSections(raftAgain)[0]!, ''), third.replace(section, ''));
  const fourth = renderResults(run('2025-01-04T00:00:00Z', 10_000, 12_000, 8_000), raftAgain);
  assert.deepEqual(markedSections(fourth), markedSections(raftAgain));
  assert.equal(fourth.split('\n').filter((line) => line.startsWith('- 2025-')).length, 4);
});

test('a hand-written marked section (notes beside a benchmark\'s) survives an HTTP run in its place', () => {
  const notes = '<!-- write-notes:start -->\n## Where the time goes\n\n- a measured finding\n<!-- write-notes:end -->';
  const first = renderResults(run('2025-01-01T00:00:00Z', 10_000, 6_000, 5_000), undefined);
  const withNotes = replaceSection(first, 'raft', '## Raft', '| 1 | 180 |').replace('<!-- raft-bench:end -->', `<!-- raft-bench:end -->\n\n${notes}`);
  const second = renderResults(run('2025-01-02T00:00:00Z', 10_000, 12_000, 8_000), withNotes);
  assert.deepEqual(markedSections(second).map((section) => section.split('\n')[0]), ['<!-- raft-bench:start -->', '<!-- write-notes:start -->']);
  assert.ok(second.includes(notes));
  assert.ok(second.indexOf(notes) > second.indexOf('<!-- raft-bench:end -->'));
  assert.ok(!second.slice(second.indexOf('## History')).includes('a measured finding'));
});

test('without an earlier file there are no other sections and one history line', () => {
  const only = renderResults(run('2025-01-01T00:00:00Z', 10_000, 6_000, 5_000), undefined);
  assert.deepEqual(markedSections(only), []);
  assert.equal(only.split('\n').filter((line) => line.startsWith('- ')).length, 1);
});
