import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderResults, type BenchRun } from './results-report.ts';
import type { WrkFigures } from './wrk-output.ts';

const figures = (requestsPerSecond: number): WrkFigures => ({
  requests: requestsPerSecond * 10,
  durationSeconds: 10,
  requestsPerSecond,
  p50Ms: 4.5,
  p90Ms: 6,
  p99Ms: 9.25,
  maxMs: 20,
  httpErrors: 0,
  socketErrors: 0,
});

const run = (date: string, bare: number, session: number): BenchRun => ({
  date,
  machine: { cpus: 2, cpuModel: 'Test CPU', node: 'v20.20.2', os: 'Linux 6.1', loadAverage: 0.25 },
  wrkVersion: 'wrk 4.1.0',
  threads: 2,
  seconds: 10,
  warmupSeconds: 2,
  bare: { label: '`GET /bare`', connections: 64, figures: figures(bare), serverCpuUsPerRequest: 40 },
  session: { label: '`GET /edge/client/v1/current-api-session`', connections: 64, figures: figures(session), serverCpuUsPerRequest: 100 },
  login: { label: '`POST /edge/client/v1/authenticate?method=password`', connections: 16, figures: figures(42.5) },
});

test('each run replaces the table and states whether b/a met the target', () => {
  const first = renderResults(run('2025-01-01T00:00:00Z', 10_000, 5_000), undefined);
  assert.match(first, /Ratio b\/a: \*\*0\.50\*\*\. Target: ≥ 0\.7 at 64 connections: \*\*not met\*\*/);
  const second = renderResults(run('2025-01-02T00:00:00Z', 10_000, 8_000), first);
  assert.match(second, /\*\*0\.80\*\*.*\*\*met\*\*/);
  assert.doesNotMatch(second, /\*\*0\.50\*\*/);
  assert.match(second, /\| b \| `GET \/edge\/client\/v1\/current-api-session` \| 64 \| 8000 \| 4\.50 \| 9\.25 \| 0 \| 0 \| 100 \|/);
  assert.match(second, /\| c \| .* \| 16 \| 42\.5 \| .* \| n\/a \|/);
  assert.match(second, /Server CPU per request a\/b: 0\.40 \(40 µs vs 100 µs\)/);
});

test('the history keeps one line per earlier run, oldest first, and appends this one', () => {
  const first = renderResults(run('2025-01-01T00:00:00Z', 10_000, 5_000), undefined);
  const second = renderResults(run('2025-01-02T00:00:00Z', 10_000, 8_000), first);
  const history = second.slice(second.indexOf('## History')).split('\n').filter((line) => line.startsWith('- '));
  assert.deepEqual(history, [
    '- 2025-01-01T00:00:00Z: a 10000 rps, b 5000 rps, b/a 0.50, c 42.5 rps (2 CPUs, Node v20.20.2, 10 s)',
    '- 2025-01-02T00:00:00Z: a 10000 rps, b 8000 rps, b/a 0.80, c 42.5 rps (2 CPUs, Node v20.20.2, 10 s)',
  ]);
});
