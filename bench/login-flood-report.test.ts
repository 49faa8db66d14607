import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commitTimeouts, floodVerdict, renderLoginFloodSection, termChanges, writeFigures, type FloodVariant, type LoginFloodRun, type PhaseFigures } from './login-flood-report.ts';
import { markedSections } from './raft-bench-report.ts';
import type { WrkFigures } from './wrk-output.ts';

const logins: WrkFigures = { requests: 1500, durationSeconds: 30, requestsPerSecond: 50, p50Ms: 900, p90Ms: 1500, p99Ms: 2400, maxMs: 3000, bytes: 0, httpErrors: 300, socketErrors: 0, statuses: { '200': 1200, '429': 300 } };

function phase(overrides: Partial<PhaseFigures>): PhaseFigures {
  const writes = writeFigures([{ ms: 5, outcome: '201' }]);
  return { phase: 'flood', seconds: 30, elections: 0, leaderChanges: 0, unansweredPolls: 0, writes, followerWrites: writes, cpuBusy: 0.98, logins, ...overrides };
}

test('write figures: outcomes by count, latency percentiles of the answered writes only', () => {
  const samples = [
    ...Array.from({ length: 97 }, (_, i) => ({ ms: i + 1, outcome: '201' })),
    { ms: 5000, outcome: '503 TIMEOUT' },
    { ms: 15000, outcome: 'no answer' },
    { ms: 7, outcome: '429 SERVER_TOO_MANY_REQUESTS' },
  ];
  const figures = writeFigures(samples);
  assert.equal(figures.sent, 100);
  assert.deepEqual(figures.outcomes, [['201', 97], ['429 SERVER_TOO_MANY_REQUESTS', 1], ['503 TIMEOUT', 1], ['no answer', 1]]);
  // 99 answered (the 7 ms 429 among them): the nearest ranks 50 and 99.
  assert.equal(figures.p50Ms, 49);
  assert.equal(figures.p99Ms, 5000);
  assert.equal(figures.maxMs, 5000);
  assert.equal(commitTimeouts(figures), 2, 'a timed-out proposal and a write never answered');
});

test('elections are term increases; leader changes count switches between known leaders', () => {
  assert.deepEqual(termChanges([]), { elections: 0, leaderChanges: 0 });
  assert.deepEqual(termChanges([{ term: 3, leader: 'ctrl1' }, { term: 3, leader: 'ctrl1' }]), { elections: 0, leaderChanges: 0 });
  const polls = [
    { term: 3, leader: 'ctrl1' },
    { term: 4, leader: undefined },
    { term: 4, leader: 'ctrl2' },
    { term: 6, leader: 'ctrl2' },
    { term: 6, leader: 'ctrl3' },
  ];
  assert.deepEqual(termChanges(polls), { elections: 3, leaderChanges: 2 });
});

test('the verdict: met only with no election and no commit timeout during the flood', () => {
  const variant = (flood: Partial<PhaseFigures>): FloodVariant => ({ name: 'on', description: 'defaults', phases: [phase({ phase: 'quiet', elections: 1 }), phase(flood)] });
  assert.deepEqual(floodVerdict(variant({})), { met: true, elections: 0, commitTimeouts: 0 }, 'an election before the flood does not count');
  assert.equal(floodVerdict(variant({ elections: 1 }))?.met, false);
  assert.equal(floodVerdict(variant({ writes: writeFigures([{ ms: 5000, outcome: '503 TIMEOUT' }]) }))?.met, false);
  assert.deepEqual(floodVerdict(variant({ followerWrites: writeFigures([{ ms: 15000, outcome: 'no answer' }]) })), { met: false, elections: 0, commitTimeouts: 1 }, 'through a follower too');
  assert.equal(floodVerdict({ name: 'x', description: '', phases: [] }), undefined);
});

test('the section: one row per variant and phase, the verdicts, and the rest of RESULTS.md kept', () => {
  const run: LoginFloodRun = {
    date: '2026-11-25T10:00:00Z',
    machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6.18', loadAverage: 1.5 },
    wrkVersion: 'wrk debian/4.1.0-3+b2',
    raftTimeouts: { electionTimeoutMs: 1000, heartbeatTimeoutMs: 200, commitTimeoutMs: 5000 },
    writeRate: 100,
    floodConnections: 64,
    threads: 2,
    variants: [
      { name: 'off', description: 'concurrency 0', phases: [phase({ phase: 'quiet', seconds: 10, logins: undefined }), phase({ elections: 2, writes: writeFigures([{ ms: 5000, outcome: '503 TIMEOUT' }, { ms: 9, outcome: '201' }]) })] },
      { name: 'on', description: 'the defaults', phases: [phase({ phase: 'quiet', seconds: 10, logins: undefined }), phase({})] },
    ],
  };
  const previous = '# Benchmark results\n\nHTTP table\n\n<!-- raft-bench:start -->\n## Raft\n\nraft table\n<!-- raft-bench:end -->\n';
  const document = renderLoginFloodSection(previous, run);
  assert.ok(document.includes('HTTP table') && document.includes('raft table'));
  assert.equal(markedSections(document).length, 2);
  assert.match(document, /\| off \| flood \| 30 \| 98% \| 2 \| 0 \| 0 \| 201: 1, 503 TIMEOUT: 1 \| 9\.0 \| 5000\.0 \| 201: 1 \| 5\.0 \| 5\.0 \| /);
  assert.match(document, /\| on \| quiet \| 10 \| 98% \| 0 \| 0 \| 0 \| 201: 1 \| 5\.0 \| 5\.0 \| 201: 1 \| 5\.0 \| 5\.0 \| – \| – \| – \| – \|/);
  assert.match(document, /\| 40\.0 \| 2400 \| 200: 1200, 429: 300 \| 0 \|/);
  assert.match(document, /Hash queue off \(concurrency 0\), during the flood: 2 elections, 1 commit timeout\. Target \(the issue's\): none of either: \*\*not met\*\*\./);
  assert.match(document, /Hash queue on \(the defaults\), during the flood: 0 elections, 0 commit timeouts\. Target \(the issue's\): none of either: \*\*met\*\*\./);
  const again = renderLoginFloodSection(document, run);
  assert.equal(again, document, 'rendering twice replaces the section in place');
});
