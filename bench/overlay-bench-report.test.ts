import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addedLatency, encryptionCpuRatio, median, renderOverlaySection, throughputRatio, throughputRow, type LatencySample, type OverlayBenchRun, type PathName, type ThroughputSample } from './overlay-bench-report.ts';
import { markedSections } from './raft-bench-report.ts';

const paths: PathName[] = ['direct', 'socat', 'overlay', 'overlay-chain', 'sdk', 'sdk-encrypted'];
/** MB/s per path and connection count, round 1 (round 2 is 10% more, round 3 10% less). */
const speeds: Record<PathName, [number, number]> = { direct: [2000, 1200], socat: [600, 450], overlay: [240, 160], 'overlay-chain': [90, 80], sdk: [200, 150], 'sdk-encrypted': [120, 100] };
/** p50 µs per path at 1 and 16 connections (p99 is four times that). */
const p50s: Record<PathName, [number, number]> = { direct: [40, 480], socat: [120, 1200], overlay: [540, 3900], 'overlay-chain': [780, 5200], sdk: [640, 4400], 'sdk-encrypted': [700, 4700] };
const roundFactor = [1, 1.1, 0.9];
const cpuOf: Record<PathName, Record<string, number>> = {
  direct: { client: 0.25, sink: 0.5 },
  socat: { socat: 1.5, client: 0.25, sink: 0.75 },
  overlay: { r1: 3, r2: 2.5, client: 0.25, sink: 0.75 },
  'overlay-chain': { r1: 3, r2: 4, r3: 4.5, client: 0.25, sink: 0.75 },
  sdk: { tunnel: 2, r1: 3, r2: 3, client: 0.25, sink: 0.75 },
  'sdk-encrypted': { tunnel: 4, r1: 3, r2: 5, client: 0.25, sink: 0.75 },
};

function run(rounds = 3): OverlayBenchRun {
  const throughput: ThroughputSample[] = [];
  const latency: LatencySample[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const path of paths) {
      for (const [index, connections] of [1, 16].entries()) {
        throughput.push({ round, path, connections, mbPerSecond: speeds[path][index]! * roundFactor[round - 1]!, cpuMsPerMb: cpuOf[path] });
        const p50Us = p50s[path][index]! * roundFactor[round - 1]!;
        latency.push({ round, path, connections, count: 1000, p50Us, p99Us: p50Us * 4 });
      }
    }
  }
  return {
    date: '2026-11-26T10:00:00Z',
    machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6.18', loadAverage: 0.8 },
    socatVersion: 'socat 1.7.4.4',
    rounds,
    warmupSeconds: 1,
    seconds: 5,
    latencyWarmupSeconds: 0.5,
    latencySeconds: 3,
    messageBytes: 64,
    writeBytes: 256 * 1024,
    connectionCounts: [1, 16],
    paths: paths.map((name) => ({ name, label: `${name} path` })),
    orders: [paths, [...paths.slice(1), paths[0]!], [...paths.slice(2), ...paths.slice(0, 2)]].slice(0, rounds),
    throughput,
    latency,
    setupSeconds: 21.4,
    measureSeconds: 203.6,
  };
}

test('median: the middle value, or the mean of the two middle ones', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('ratios are of the medians, with each round paired with its own round; added latency is a p50 difference', () => {
  const figures = run();
  const ratio = throughputRatio(figures, 'overlay', 'direct', 1)!;
  assert.equal(ratio.median, 240 / 2000);
  assert.deepEqual(ratio.rounds.map((value) => value.toFixed(3)), ['0.120', '0.120', '0.120']);
  assert.equal(throughputRatio(figures, 'overlay', 'socat', 16)!.median, 160 / 450);
  const added = addedLatency(figures, 'overlay', 'direct', 1)!;
  assert.equal(added.p50Us, 500);
  assert.equal(added.p99Us, 2000);
  assert.deepEqual(added.p50Rounds.map(Math.round), [500, 550, 450]);
  const row = throughputRow(figures, 'overlay-chain', 16)!;
  assert.equal(row.forwarderCpu, 11.5, 'r1 + r2 + r3');
  assert.equal(row.loadCpu, 1);
  assert.equal(throughputRow(figures, 'direct', 1)!.forwarderCpu, undefined);
  assert.equal(throughputRatio({ ...figures, throughput: [] }, 'overlay', 'direct', 1), undefined);
});

test('the section: tables, ratios and every round, and the rest of RESULTS.md kept', () => {
  const figures = run();
  const previous = '# Benchmark results\n\nHTTP table\n\n<!-- raft-bench:start -->\n## Raft\n\nraft table\n<!-- raft-bench:end -->\n';
  const document = renderOverlaySection(previous, figures);
  assert.ok(document.includes('HTTP table') && document.includes('raft table'));
  assert.equal(markedSections(document).length, 2);
  assert.match(document, /<!-- overlay-bench:start -->\n## Overlay: throughput and added latency against direct loopback and socat\n/);
  assert.match(document, /Machine: 2 CPUs \(AMD EPYC\), Linux 6\.18, Node v20\.20\.2, socat 1\.7\.4\.4; load average 0\.80 at start\./);
  assert.match(document, /direct → socat → overlay → overlay-chain → sdk → sdk-encrypted; socat → overlay → overlay-chain → sdk → sdk-encrypted → direct; overlay → overlay-chain → sdk → sdk-encrypted → direct → socat/);
  assert.match(document, /The run took 21 s to set up and warm up, and 204 s to measure\./);
  assert.match(document, /\| 1 \| direct \| 2000 \| 2000, 2200, 1800 \| – \| 0\.75 \|/);
  assert.match(document, /\| 16 \| overlay \| 160 \| 160, 176, 144 \| 5\.50 \| 1\.00 \|/);
  assert.match(document, /\| 1 \| overlay-chain \| 90\.0 \| 90\.0, 99\.0, 81\.0 \| 11\.5 \| 1\.00 \|/);
  assert.match(document, /\| 1 \| direct \| 40 \| 160 \| – \| 40, 44, 36 \| 160, 176, 144 \| 3000 \|/);
  assert.match(document, /\| 1 \| overlay \| 540 \| 2160 \| \+500 \| 540, 594, 486 \| /);
  assert.match(document, /Throughput overlay\/direct at 1 connection: \*\*0\.12\*\* \(by round: 0\.12, 0\.12, 0\.12\); overlay\/socat: \*\*0\.40\*\*/);
  assert.match(document, /Throughput overlay\/direct at 16 connections: \*\*0\.13\*\*/);
  assert.match(document, /Throughput overlay-chain\/direct at 16 connections: \*\*0\.07\*\* \(by round: 0\.07, 0\.07, 0\.07\); overlay-chain\/socat: \*\*0\.18\*\*/);
  assert.match(document, /Added latency over direct at 1 connection: socat \*\*\+80 µs\*\* p50 \(\+320 µs p99; by round \+80, \+88, \+72\); overlay \*\*\+500 µs\*\* p50/);
  assert.match(document, /overlay over socat \+420 µs p50\./);
  assert.match(document, /CPU per MB by process \(ms\/MB, medians\): overlay at 16 connections: r1 3\.00, r2 2\.50, client 0\.25, sink 0\.75; overlay-chain at 16 connections: r1 3\.00, r2 4\.00, r3 4\.50/);
  assert.match(document, /CPU per MB of every process on the path \(forwarders, client and sink; ms\/MB, medians\), and the throughput that would take all 2 CPUs: at 1 connection: direct 0\.75 \(≤ 2667 MB\/s\), socat 2\.50 \(≤ 800 MB\/s\), overlay 6\.50 \(≤ 308 MB\/s\), overlay-chain 12\.5 \(≤ 160 MB\/s\), sdk 9\.00 \(≤ 222 MB\/s\), sdk-encrypted 13\.0 \(≤ 154 MB\/s\); at 16 connections: /);
  assert.match(document, /\| 16 \| sdk \| 150 \| 150, 165, 135 \| 8\.00 \| 1\.00 \|/);
  assert.match(document, /\| 1 \| sdk-encrypted \| 120 \| 120, 132, 108 \| 12\.0 \| 1\.00 \|/);
  assert.match(document, /Throughput sdk\/direct at 1 connection: \*\*0\.10\*\* \(by round: 0\.10, 0\.10, 0\.10\); sdk\/socat: \*\*0\.33\*\* \(by round: [^)]*\); sdk\/overlay: \*\*0\.83\*\*/);
  assert.match(document, /Throughput sdk-encrypted\/direct at 16 connections: \*\*0\.08\*\* .*; sdk-encrypted\/overlay: \*\*0\.63\*\*/);
  assert.match(document, /Added latency of the SDK paths over the router overlay at 1 connection: sdk \*\*\+100 µs\*\* p50 \(\+400 µs p99; by round \+100, \+110, \+90\); sdk-encrypted \*\*\+160 µs\*\* p50/);
  assert.match(document, /End-to-end encryption's cost, forwarder CPU per MB \(tunnel \+ r1 \+ r2\) of sdk-encrypted over sdk: at 1 connection \*\*1\.50x\*\* \(12\.0 over 8\.00 ms\/MB; by round 1\.50, 1\.50, 1\.50\): within the 1\.5x target; at 16 connections \*\*1\.50x\*\*/);
  assert.match(document, /sdk-encrypted at 16 connections: tunnel 4\.00, r1 3\.00, r2 5\.00, client 0\.25, sink 0\.75/);
  assert.match(document, /encryptionRequired/);
  assert.equal(renderOverlaySection(document, figures), document, 'rendering twice replaces the section in place');
  assert.match(renderOverlaySection(undefined, run(1)), /^# Benchmark results\n\n<!-- overlay-bench:start -->/);
});

test('the encryption ratio: over the target is said so, and a run without the SDK paths has no such line', () => {
  const figures = run();
  const heavier = { ...figures, throughput: figures.throughput.map((sample) => (sample.path === 'sdk-encrypted' ? { ...sample, cpuMsPerMb: { ...sample.cpuMsPerMb, r2: 9 } } : sample)) };
  assert.equal(encryptionCpuRatio(heavier, 16)!.median, 2);
  assert.match(renderOverlaySection(undefined, heavier), /at 16 connections \*\*2\.00x\*\* \(16\.0 over 8\.00 ms\/MB; by round 2\.00, 2\.00, 2\.00\): over the 1\.5x target\./);
  const withoutSdk = { ...figures, paths: figures.paths.filter((path) => !path.name.startsWith('sdk')), throughput: figures.throughput.filter((sample) => !sample.path.startsWith('sdk')) };
  assert.equal(encryptionCpuRatio(withoutSdk, 1), undefined);
  assert.doesNotMatch(renderOverlaySection(undefined, withoutSdk), /End-to-end encryption|encryptionRequired/);
});
