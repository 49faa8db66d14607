import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuMsPerRouterMinute, crossings, lastToFirst, partDurations, renderRouterSimSection, routerSimSummary, type RouterSimRun } from './router-sim-bench-report.ts';

const idle = (cpuSeconds: number, rssMiB: number) => ({ seconds: 60, cpuSeconds, rssBytes: rssMiB * 1024 * 1024 });

const run: RouterSimRun = {
  date: '2026-11-29T21:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6', loadAverage: 3, loadAverageAtEnd: 4 },
  routers: 100,
  terminatorsPerRouter: 10,
  model: { services: 200, servicePolicies: 250, edgeRouterPolicies: 250, identities: 10, groups: 20, seconds: 12 },
  enrollment: { seconds: 20, concurrency: 16, stepMs: { create: 3000, read: 500, csr: 1000, erott: 15_000 } },
  connect: { seconds: 8, connected: 100, concurrency: 64, welcomes: 101, reconnects: 1, failedDials: 2, refusals: 0 },
  lastConnectMs: 8000,
  terminators: [
    { controller: 'ctrl1', role: 'leader', samples: [{ atMs: 0, count: 0 }, { atMs: 2000, count: 200 }, { atMs: 4000, count: 500 }, { atMs: 10_000, count: 1000 }] },
    { controller: 'ctrl2', role: 'follower', samples: [{ atMs: 0, count: 0 }, { atMs: 5000, count: 600 }] },
  ],
  idle: [
    { controller: 'ctrl1', role: 'leader', baseline: idle(6, 300), connected: idle(12, 350), arrival: { seconds: 30, cpuSeconds: 20, rssBytes: undefined } },
    { controller: 'ctrl2', role: 'follower', baseline: idle(3, 200), connected: idle(6, 220), arrival: { seconds: 30, cpuSeconds: 10, rssBytes: undefined } },
    { controller: 'ctrl3', role: 'follower', baseline: idle(3, 200), connected: idle(3, 210), arrival: { seconds: 30, cpuSeconds: 5.5, rssBytes: undefined } },
  ],
  metricsIntervalSeconds: 60,
  heartbeatIntervalSeconds: 10,
  routerList: [{ controller: 'ctrl1', role: 'leader', filter: 'isOnline = true', samplesMs: [5, 1, 3, 2, 4], failures: 1 }],
  bytesByType: { 'ctrl.edgeModel': 10 * 1024 * 1024, hb: 1000 },
  simulatorCpuSeconds: 4.25,
};

describe('router simulator benchmark report', () => {
  it('finds when each part of the terminators was reached, between polls', () => {
    const samples = run.terminators[0]!.samples;
    const crossed = crossings(samples, 1000, 10);
    assert.deepEqual(crossed.slice(0, 3), [1000, 2000, 2666.6666666666665]);
    assert.equal(crossed.at(-1), 10_000);
    assert.deepEqual(crossings(run.terminators[1]!.samples, 1000, 10).slice(5), [5000, undefined, undefined, undefined, undefined]);
  });

  it('times each part from the one before, and compares the last with the first', () => {
    const durations = partDurations([1000, 2000, undefined, 4000]);
    assert.deepEqual(durations, [1000, 1000, undefined, undefined]);
    assert.equal(lastToFirst(partDurations([1000, 2000, 4000])), 2);
    assert.equal(lastToFirst(durations), undefined);
  });

  it('charges the routers only the CPU above the idle baseline', () => {
    // (6 + 3 + 0) CPU seconds over 60 s of window = 0.15 s/s = 9000 ms a minute, for 100 routers.
    assert.equal(cpuMsPerRouterMinute(run.idle, 100)?.toFixed(6), '90.000000');
    assert.equal(cpuMsPerRouterMinute([{ ...run.idle[0]!, baseline: { seconds: 60, cpuSeconds: undefined, rssBytes: undefined } }], 100), undefined);
  });

  it('writes every figure: rates, the terminator parts on each controller, idle CPU and RSS, list latency, bytes', () => {
    const text = routerSimSummary(run);
    assert.match(text, /100 in 20\.0 s: \*\*5\.0 routers\/s\*\*/);
    assert.match(text, /create 30 ms, read 5 ms, csr 10 ms, erott 150 ms/);
    assert.match(text, /\*\*8\.0 s\*\* \(13 routers\/s\); 101 welcomes, 1 reconnects, 2 failed dials, 0 refusals/);
    assert.match(text, /\*\*90\.0 ms per router per minute\*\*/);
    assert.match(text, /35\.5 s \(ctrl1 20\.0, ctrl2 10\.0, ctrl3 5\.5\) over 30 s: \*\*355\.0 ms per router\*\*/);
    assert.match(text, /Terminators listed by ctrl1 \(leader\): all 1,000 at 10\.0 s after the first dial, \*\*2\.0 s after the last router connected\*\*; each tenth \(100\): 1\.0, 1\.0, 0\.7, 0\.7, 0\.7, 1\.2, 1\.2, 1\.2, 1\.2, 1\.2 s; last\/first \*\*1\.20\*\*/);
    assert.match(text, /Terminators listed by ctrl2 \(follower\): all 1,000 at not reached after the first dial, \*\*not reached after the last router connected\*\* \(last poll: 600 at 5\.0 s\)/);
    assert.match(text, /\| ctrl1 \| leader \| 10\.0% \| 6000 \| 300 MiB \| 20\.0% \| 12000 \| 350 MiB \| 2\.00 \|/);
    assert.match(text, /\| ctrl1 \| leader \| `isOnline = true` \| 5 \| 1 \| 3\.0 \| 5\.0 \| 5\.0 \|/);
    assert.match(text, /ctrl\.edgeModel 10 MiB \(104,858 B\), hb 0 MiB \(10 B\)/);
  });

  it('says how many connected when not all did', () => {
    assert.match(routerSimSummary({ ...run, connect: { ...run.connect, connected: 40 } }), /\*\*only 40 of 100 connected\*\* by the end of the wait; last welcome at \*\*8\.0 s\*\* \(5 routers\/s\)/);
  });

  it('replaces only its own marked section', () => {
    const previous = '# Benchmark results\n\n<!-- other-bench:start -->\nkept\n<!-- other-bench:end -->\n\n<!-- router-sim-bench:start -->\nold\n<!-- router-sim-bench:end -->\n\n<!-- router-sim-notes:start -->\nnotes\n<!-- router-sim-notes:end -->\n';
    const written = renderRouterSimSection(previous, run);
    assert.match(written, /kept/);
    assert.match(written, /notes/);
    assert.doesNotMatch(written, /\nold\n/);
    assert.match(written, /<!-- router-sim-bench:start -->\n## Router simulator/);
  });
});
