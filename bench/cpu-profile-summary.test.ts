import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSummary, summarize, type CpuProfile } from './cpu-profile-summary.ts';

const profile: CpuProfile = {
  startTime: 0,
  endTime: 100_000,
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3, 4, 5] },
    { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    { id: 3, callFrame: { functionName: 'writev', url: 'node:internal/stream_base_commons', lineNumber: 9 } },
    { id: 4, callFrame: { functionName: '', url: 'file:///work/router/circuits/circuit-end.ts?x=1', lineNumber: 41 } },
    { id: 5, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    // The same function reached by another path: its self time adds up.
    { id: 6, callFrame: { functionName: 'writev', url: 'node:internal/stream_base_commons', lineNumber: 9 } },
  ],
  // Each sample's time is the next delta: writev 30 + 10, idle 50, anonymous 20, GC 10, the last sample none.
  samples: [3, 2, 4, 5, 6, 3],
  timeDeltas: [0, 30_000, 50_000, 20_000, 10_000, 10_000],
};

test('self time is summed by function and script, idle kept apart, largest first, as shares of the busy time', () => {
  const summary = summarize(profile);
  assert.equal(summary.totalMs, 120);
  assert.equal(summary.idleMs, 50);
  assert.equal(summary.busyMs, 70);
  assert.deepEqual(
    summary.functions.map(({ name, selfMs }) => [name, selfMs]),
    [
      ['writev (node:internal/stream_base_commons:10)', 40],
      ['(anonymous) (circuit-end.ts:42)', 20],
      ['(garbage collector)', 10],
    ],
  );
  assert.ok(Math.abs(summary.functions[0]!.share - 40 / 70) < 1e-9);
  const text = formatSummary('r1.cpuprofile', summary, 2);
  assert.match(text, /^r1\.cpuprofile: busy 70 ms of 120 ms sampled/);
  assert.match(text, /57\.1%\s+40 ms\s+writev/);
  assert.equal(text.split('\n').length, 3, 'the title and the top 2');
});
