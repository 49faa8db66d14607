import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandsPerLogin, medianRatio, renderStormSection, stormSummary, type StormMeasurement, type StormRun } from './oidc-login-storm-report.ts';

const measurement = (kind: 'legacy' | 'oidc', logins: number, raftApplied: number, extra: Partial<StormMeasurement> = {}): StormMeasurement => ({
  kind,
  seconds: 10,
  logins,
  failures: 0,
  failureSamples: [],
  loginP50Ms: 50,
  loginP99Ms: 200,
  raftApplied,
  writesCommitted: 200,
  writesSent: 200,
  writeP99Ms: 30,
  leaderCpuSeconds: 5,
  ...extra,
});

const run: StormRun = {
  date: '2026-11-29T15:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6', loadAverage: 1.5 },
  concurrency: 8,
  writeRate: 20,
  loginController: 'ctrl1',
  rounds: [
    { round: 1, first: 'legacy', legacy: measurement('legacy', 1000, 1200), oidc: measurement('oidc', 500, 201) },
    { round: 2, first: 'oidc', legacy: measurement('legacy', 800, 1000), oidc: measurement('oidc', 600, 200, { failures: 2, failureSamples: ['token: HTTP 400'] }) },
    { round: 3, first: 'legacy', legacy: measurement('legacy', 1000, 1200), oidc: measurement('oidc', 300, 200) },
  ],
};

test('raft commands per login leave out the writes sent meanwhile', () => {
  assert.equal(commandsPerLogin(measurement('legacy', 1000, 1200)), 1);
  assert.equal(commandsPerLogin(measurement('oidc', 500, 200)), 0);
  assert.equal(commandsPerLogin(measurement('oidc', 0, 200)), 0, 'no logins, no division by zero');
});

test('the summary lists every round in the order measured, the median ratio and the raft target', () => {
  assert.equal(medianRatio(run), 0.5);
  const text = stormSummary(run);
  const rows = text.split('\n').filter((line) => /^\| \d /.test(line));
  assert.equal(rows.length, 6);
  assert.match(rows[2]!, /^\| 2 \| OIDC/, 'round 2 measured OIDC first');
  assert.match(text, /round 1: 0\.50, round 2: 0\.75, round 3: 0\.30/);
  assert.match(text, /Ratio OIDC\/legacy \(median over the rounds\): \*\*0\.50\*\*/);
  assert.match(text, /OIDC at most 0\.00 \(target: none: \*\*met\*\*\), legacy 1\.00/);
  assert.match(text, /Failures: oidc: token: HTTP 400/);
  assert.match(rows[0]!, /\| 5\.00 \|$/, 'round 1 legacy: 5 CPU seconds over 1000 logins');
  const withoutProc = stormSummary({ ...run, rounds: [{ ...run.rounds[0]!, legacy: measurement('legacy', 10, 10, { leaderCpuSeconds: undefined }) }] });
  assert.match(withoutProc, /\| n\/a \|/);
});

test('the section replaces its own markers and keeps the rest of RESULTS.md', () => {
  const first = renderStormSection('# Benchmark results\n\nother\n', run, 'notes');
  assert.match(first, /other\n\n<!-- oidc-login-storm-bench:start -->\n## OIDC login storm/);
  const second = renderStormSection(first, { ...run, date: '2026-11-30T00:00:00Z' }, 'notes');
  assert.equal(second.match(/oidc-login-storm-bench:start/g)?.length, 1);
  assert.match(second, /2026-11-30T00:00:00Z/);
  assert.doesNotMatch(second, /2026-11-29T15:00:00Z/);
});
