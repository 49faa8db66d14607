import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addedLatency,
  addedP50Ratio,
  connectionRateRatio,
  encryptionCpuRatio,
  fairnessVerdict,
  median,
  renderOverlaySection,
  routersCpu,
  streamFairness,
  targetVerdicts,
  throughputRatio,
  throughputRow,
  type ConnectionRateSample,
  type FairnessSample,
  type LatencySample,
  type OverlayBenchRun,
  type PathName,
  type ThroughputSample,
} from './overlay-bench-report.ts';
import { markedSections } from './raft-bench-report.ts';

const paths: PathName[] = ['direct', 'socat', 'stunnel-pair', 'overlay', 'overlay-chain', 'sdk', 'sdk-encrypted'];
/** MB/s per path and connection count, round 1 (round 2 is 10% more, round 3 10% less). */
const speeds: Record<PathName, [number, number]> = { direct: [2000, 1200], socat: [600, 450], 'stunnel-pair': [400, 300], overlay: [240, 160], 'overlay-chain': [90, 80], sdk: [200, 150], 'sdk-encrypted': [120, 100] };
/** p50 µs per path at 1 and 16 connections (p99 is four times that). */
const p50s: Record<PathName, [number, number]> = { direct: [40, 480], socat: [120, 1200], 'stunnel-pair': [140, 1300], overlay: [540, 3900], 'overlay-chain': [780, 5200], sdk: [640, 4400], 'sdk-encrypted': [700, 4700] };
const roundFactor = [1, 1.1, 0.9];
const cpuOf: Record<PathName, Record<string, number>> = {
  direct: { client: 0.25, sink: 0.5 },
  socat: { socat: 1.5, client: 0.25, sink: 0.75 },
  'stunnel-pair': { 'stunnel-a': 2, 'stunnel-b': 2.5, client: 0.25, sink: 0.75 },
  overlay: { r1: 3, r2: 2.5, client: 0.25, sink: 0.75 },
  'overlay-chain': { r1: 3, r2: 4, r3: 4.5, client: 0.25, sink: 0.75 },
  sdk: { tunnel: 2, r1: 3, r2: 3, client: 0.25, sink: 0.75 },
  'sdk-encrypted': { tunnel: 4, r1: 3, r2: 5, client: 0.25, sink: 0.75 },
};

/** Eight streams: through the overlay evenly (12.5% each, round 2 a little uneven); through the stunnel pair one
 * stream gets 20 MB of 395 (5.1%, under half its fair share), and in round 3 another stalls for 1.2 s. */
function fairness(rounds: number): FairnessSample[] {
  const samples: FairnessSample[] = [];
  for (let round = 1; round <= rounds; round++) {
    const even = Array.from({ length: 8 }, () => 100e6);
    if (round === 2) even.splice(0, 2, 90e6, 110e6);
    samples.push({ round, path: 'overlay', seconds: 5, streamBytes: even, longestStallMs: even.map(() => 100) });
    const uneven = [20e6, ...Array.from({ length: 7 }, () => 375e6 / 7)];
    samples.push({ round, path: 'stunnel-pair', seconds: 5, streamBytes: uneven, longestStallMs: uneven.map((_, index) => (round === 3 && index === 4 ? 1200 : 200)) });
  }
  return samples;
}

function connectionRates(rounds: number): ConnectionRateSample[] {
  const perSecond: Partial<Record<PathName, number>> = { socat: 2000, 'stunnel-pair': 800, overlay: 400 };
  const cpuPerConnection: Partial<Record<PathName, Record<string, number>>> = { socat: { socat: 0.4 }, 'stunnel-pair': { 'stunnel-a': 0.9, 'stunnel-b': 1.1 }, overlay: { r1: 1.5, r2: 1, controller: 2 } };
  return Array.from({ length: rounds }, (_, index) => index + 1).flatMap((round) =>
    (['socat', 'stunnel-pair', 'overlay'] as const).map((path) => ({
      round,
      path,
      completed: perSecond[path]! * 5,
      failed: path === 'overlay' && round === 2 ? 1 : 0,
      perSecond: perSecond[path]! * roundFactor[round - 1]!,
      p50Ms: 8000 / perSecond[path]!,
      p99Ms: 24000 / perSecond[path]!,
      cpuMsPerConnection: cpuPerConnection[path]!,
      ...(path === 'overlay' && round === 2 ? { firstFailure: 'no whole echo within 10000 ms (0 of 64 bytes)' } : {}),
    })),
  );
}

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
    stunnel: { version: 'stunnel 5.68 (OpenSSL 3.0.19)', protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', keyExchange: 'X25519' },
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
    fairnessStreams: 8,
    fairnessSampleMs: 100,
    fairness: fairness(rounds),
    connectionRate: { concurrency: 8, seconds: 5, payloadBytes: 64 },
    connectionRates: connectionRates(rounds),
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
  assert.match(document, /<!-- overlay-bench:start -->\n## Overlay: throughput, added latency, fairness and new connections against direct loopback, socat and a stunnel pair\n/);
  assert.match(document, /Machine: 2 CPUs \(AMD EPYC\), Linux 6\.18, Node v20\.20\.2, socat 1\.7\.4\.4, stunnel 5\.68 \(OpenSSL 3\.0\.19\); load average 0\.80 at start\./);
  assert.match(document, /direct → socat → stunnel-pair → overlay → overlay-chain → sdk → sdk-encrypted; socat → stunnel-pair → overlay → overlay-chain → sdk → sdk-encrypted → direct; stunnel-pair → overlay → overlay-chain → sdk → sdk-encrypted → direct → socat/);
  assert.match(document, /The run took 21 s to set up and warm up, and 204 s to measure\./);
  assert.match(document, /\| 1 \| direct \| 2000 \| 2000, 2200, 1800 \| – \| 0\.75 \|/);
  assert.match(document, /\| 16 \| overlay \| 160 \| 160, 176, 144 \| 5\.50 \| 1\.00 \|/);
  assert.match(document, /\| 1 \| overlay-chain \| 90\.0 \| 90\.0, 99\.0, 81\.0 \| 11\.5 \| 1\.00 \|/);
  assert.match(document, /\| 1 \| direct \| 40 \| 160 \| – \| 40, 44, 36 \| 160, 176, 144 \| 3000 \|/);
  assert.match(document, /\| 1 \| overlay \| 540 \| 2160 \| \+500 \| 540, 594, 486 \| /);
  assert.match(document, /Throughput overlay\/direct at 1 connection: \*\*0\.12\*\* \(by round: 0\.12, 0\.12, 0\.12\); overlay\/socat: \*\*0\.40\*\*/);
  assert.match(document, /Throughput overlay\/direct at 16 connections: \*\*0\.13\*\*/);
  assert.match(document, /Throughput overlay-chain\/direct at 16 connections: \*\*0\.07\*\* \(by round: 0\.07, 0\.07, 0\.07\); overlay-chain\/socat: \*\*0\.18\*\*/);
  assert.match(document, /Added latency over direct at 1 connection: socat \*\*\+80 µs\*\* p50 \(\+320 µs p99; by round \+80, \+88, \+72\); stunnel-pair \*\*\+100 µs\*\* p50 \(\+400 µs p99; by round \+100, \+110, \+90\); overlay \*\*\+500 µs\*\* p50/);
  assert.match(document, /overlay over socat \+420 µs p50; overlay over stunnel-pair/);
  assert.match(document, /CPU per MB by process \(ms\/MB, medians\): stunnel-pair at 16 connections: stunnel-a 2\.00, stunnel-b 2\.50, client 0\.25, sink 0\.75; overlay at 16 connections: r1 3\.00, r2 2\.50, client 0\.25, sink 0\.75; overlay-chain at 16 connections: r1 3\.00, r2 4\.00, r3 4\.50/);
  assert.match(document, /CPU per MB of every process on the path \(forwarders, client and sink; ms\/MB, medians\), and the throughput that would take all 2 CPUs: at 1 connection: direct 0\.75 \(≤ 2667 MB\/s\), socat 2\.50 \(≤ 800 MB\/s\), stunnel-pair 5\.50 \(≤ 364 MB\/s\), overlay 6\.50 \(≤ 308 MB\/s\), overlay-chain 12\.5 \(≤ 160 MB\/s\), sdk 9\.00 \(≤ 222 MB\/s\), sdk-encrypted 13\.0 \(≤ 154 MB\/s\); at 16 connections: /);
  assert.match(document, /\| 16 \| sdk \| 150 \| 150, 165, 135 \| 8\.00 \| 1\.00 \|/);
  assert.match(document, /\| 1 \| sdk-encrypted \| 120 \| 120, 132, 108 \| 12\.0 \| 1\.00 \|/);
  assert.match(document, /Throughput sdk\/direct at 1 connection: \*\*0\.10\*\* \(by round: 0\.10, 0\.10, 0\.10\); sdk\/socat: \*\*0\.33\*\* \(by round: [^)]*\); sdk\/stunnel-pair: \*\*0\.50\*\* \(by round: 0\.50, 0\.50, 0\.50\); sdk\/overlay: \*\*0\.83\*\*/);
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

test('the stunnel pair: a baseline beside socat, its relays as the forwarders, the SDK paths and the overlay against it', () => {
  const figures = run();
  assert.equal(throughputRow(figures, 'stunnel-pair', 16)!.forwarderCpu, 4.5, 'stunnel-a + stunnel-b');
  assert.equal(throughputRatio(figures, 'overlay', 'stunnel-pair', 1)!.median, 240 / 400);
  const document = renderOverlaySection(undefined, figures);
  assert.match(document, /\| 1 \| stunnel-pair \| 400 \| 400, 440, 360 \| 4\.50 \| 1\.00 \|/);
  assert.match(document, /relay A's probe connection logged TLSv1\.3 TLS_AES_256_GCM_SHA384, key exchange X25519\./);
  assert.match(document, /Throughput overlay\/direct at 16 connections: \*\*0\.13\*\* [^\n]*; overlay\/stunnel-pair: \*\*0\.53\*\* \(by round: 0\.53, 0\.53, 0\.53\)\./);
  assert.match(document, /Throughput sdk-encrypted\/direct at 16 connections: [^\n]*; sdk-encrypted\/stunnel-pair: \*\*0\.33\*\* [^\n]*; sdk-encrypted\/overlay: \*\*0\.63\*\*/);
  assert.match(document, /Throughput stunnel-pair\/direct at 1 connection: \*\*0\.20\*\* \(by round: 0\.20, 0\.20, 0\.20\); stunnel-pair\/socat: \*\*0\.67\*\* \(by round: 0\.67, 0\.67, 0\.67\)\./);
  assert.match(document, /stunnel-pair at 16 connections: stunnel-a 2\.00, stunnel-b 2\.50, client 0\.25, sink 0\.75/);
  assert.match(document, /overlay over socat \+420 µs p50; overlay over stunnel-pair \+400 µs p50\./);
});

test("the targets: each with its figure, every round's and a verdict, met and not met", () => {
  const figures = run();
  const lines = targetVerdicts(figures);
  assert.deepEqual(lines.slice(0, 9), [
    "- overlay throughput ≥ 1.0x stunnel-pair's at 1 connection: **0.60x** (by round 0.60, 0.60, 0.60): **not met**",
    "- overlay throughput ≥ 1.0x stunnel-pair's at 16 connections: **0.53x** (by round 0.53, 0.53, 0.53): **not met**",
    "- overlay throughput ≥ 0.6x socat's at 1 connection: **0.40x** (by round 0.40, 0.40, 0.40): **not met**",
    "- overlay throughput ≥ 0.6x socat's at 16 connections: **0.36x** (by round 0.36, 0.36, 0.36): **not met**",
    "- overlay-chain throughput ≥ 0.7x stunnel-pair's at 1 connection: **0.23x** (by round 0.23, 0.23, 0.23): **not met**",
    "- overlay-chain throughput ≥ 0.7x stunnel-pair's at 16 connections: **0.27x** (by round 0.27, 0.27, 0.27): **not met**",
    "- routers' CPU (r1 + r2, overlay) ≤ 3.5 ms/MB at 1 connection: **5.50 ms/MB** (by round 5.50, 5.50, 5.50): **not met**",
    "- routers' CPU (r1 + r2, overlay) ≤ 3.5 ms/MB at 16 connections: **5.50 ms/MB** (by round 5.50, 5.50, 5.50): **not met**",
    "- the overlay's added p50 at 1 connection ≤ 3x socat's: **6.25x** (+500 µs against +80 µs; by round 6.25, 6.25, 6.25): **not met**",
  ]);
  assert.match(lines[9]!, /^- 8 concurrent streams through the overlay share fairly \(none below 6\.25% of the bytes, none stalled ≥ 1 s\): smallest share by round 12\.5%, 11\.3%, 12\.5%, largest 12\.5%, 13\.8%, 12\.5%, longest stall 100 ms, 100 ms, 100 ms: \*\*met\*\*$/);
  assert.match(lines[10]!, /^- 8 concurrent streams through the stunnel pair \(baseline\) share fairly .*smallest share by round 5\.1%, 5\.1%, 5\.1%, .*longest stall 200 ms, 200 ms, 1200 ms: \*\*not met\*\*$/);

  // An overlay that meets them: twice the stunnel pair's throughput, routers at 3 ms/MB, 200 µs added at 1 connection.
  const fast = {
    ...figures,
    throughput: figures.throughput.map((sample) =>
      sample.path === 'overlay' ? { ...sample, mbPerSecond: sample.mbPerSecond * 4, cpuMsPerMb: { ...sample.cpuMsPerMb, r1: 1.5, r2: 1.5 } } : sample.path === 'overlay-chain' ? { ...sample, mbPerSecond: sample.mbPerSecond * 4 } : sample,
    ),
    latency: figures.latency.map((sample) => (sample.path === 'overlay' && sample.connections === 1 ? { ...sample, p50Us: sample.p50Us - 300 * (sample.p50Us / 540) } : sample)),
  };
  const met = targetVerdicts(fast);
  for (const line of met.slice(0, 9)) assert.match(line, /: \*\*met\*\*$/, line);
  assert.match(met[0]!, /\*\*2\.40x\*\*/);
  assert.equal(routersCpu(fast, 16)!.median, 3);
  assert.equal(addedP50Ratio(fast, 1)!.median.toFixed(2), '2.50');

  // A target the run could not measure says so rather than guessing.
  const withoutStunnel = { ...figures, throughput: figures.throughput.filter((sample) => sample.path !== 'stunnel-pair'), fairness: [] };
  assert.match(targetVerdicts(withoutStunnel)[0]!, /at 1 connection: –: not measured$/);
  assert.match(targetVerdicts(withoutStunnel).at(-1)!, /: –: not measured$/);
  // socat's added p50 at or below zero in a round gives no ratio for that round.
  const noisy = { ...figures, latency: figures.latency.map((sample) => (sample.path === 'socat' && sample.round === 2 && sample.connections === 1 ? { ...sample, p50Us: 40 } : sample)) };
  assert.deepEqual(addedP50Ratio(noisy, 1)!.rounds.map((value) => (Number.isNaN(value) ? 'NaN' : value.toFixed(2))), ['6.25', 'NaN', '6.25']);
});

test('fairness: per stream its bytes from the first sample to the last, and its longest stall while the others move', () => {
  // Sampled every 100 ms for 2 s; every stream pauses from 0.5 s to 1.0 s (the whole path stood still). Stream 2 gets
  // nothing from 0.2 s to 2.0 s: 1.2 s of it while the others moved, a stall. Stream 3 gets nothing from 0.5 s to 1.5 s,
  // but only 0.5 s of that while the others moved: no stall.
  const samples = Array.from({ length: 21 }, (_, k) => {
    const moving = (rate: number) => (k <= 5 ? k * rate : 5 * rate + Math.max(0, k - 10) * rate);
    const stream2 = k <= 2 ? k * 5 : k < 20 ? 10 : 15;
    const stream3 = k <= 5 ? k * 7 : k <= 15 ? 35 : 35 + (k - 15) * 7;
    return { atUs: 1_000_000 + k * 100_000, bytes: [moving(10), moving(20), stream2, stream3] };
  });
  const result = streamFairness(samples);
  assert.equal(result.seconds, 2);
  assert.deepEqual(result.streamBytes, [150, 300, 15, 70]);
  assert.deepEqual(result.longestStallMs.map(Math.round), [0, 0, 1200, 500]);
  assert.throws(() => streamFairness(samples.slice(0, 1)), /at least two samples/);

  const judged = fairnessVerdict({ round: 1, path: 'overlay', ...result });
  assert.deepEqual(judged.shares.map((share) => share.toFixed(3)), ['0.280', '0.561', '0.028', '0.131']);
  assert.equal(judged.minShare.toFixed(3), '0.028');
  assert.equal(judged.longestStallMs, 1200);
  assert.equal(judged.met, false, 'a stream under half its fair share (12.5% for four) and a stall ≥ 1 s');
  assert.equal(fairnessVerdict({ round: 1, path: 'overlay', seconds: 1, streamBytes: [10, 9, 11, 10], longestStallMs: [0, 999, 0, 0] }).met, true);
  assert.equal(fairnessVerdict({ round: 1, path: 'overlay', seconds: 1, streamBytes: [10, 9, 11, 10], longestStallMs: [0, 1000, 0, 0] }).met, false, 'a 1 s stall');
  assert.equal(fairnessVerdict({ round: 1, path: 'overlay', seconds: 1, streamBytes: [10, 10, 10, 2.4], longestStallMs: [0, 0, 0, 0] }).met, false, 'under 12.5%');
  assert.equal(fairnessVerdict({ round: 1, path: 'overlay', seconds: 1, streamBytes: [0, 0], longestStallMs: [0, 0] }).met, false, 'nothing moved');
});

test('the fairness and new-connection tables: every round, every stream, and the overlay against socat and the stunnel pair', () => {
  const document = renderOverlaySection(undefined, run());
  assert.match(document, /\| overlay \| 2 \| 160 \| 90\.0, 110, 100, 100, 100, 100, 100, 100 \| 11\.3%, 13\.8%, 12\.5%, [^|]* \| 11\.3% \| 13\.8% \| 100 \|/);
  assert.match(document, /\| stunnel-pair \| 3 \| 79\.0 \| 20\.0, 53\.6, [^|]* \| 5\.1%, 13\.6%, [^|]* \| 5\.1% \| 13\.6% \| 1200 \|/);
  assert.match(document, /\| socat \| 2000 \| 2000, 2200, 1800 \| 4\.00 \| 12\.00 \| 4\.00, 4\.00, 4\.00 \| 12\.00, 12\.00, 12\.00 \| 0 \| socat 0\.40 \|/);
  assert.match(document, /\| overlay \| 400 \| 400, 440, 360 \| 20\.00 \| 60\.00 \| [^|]* \| [^|]* \| 1 \(no whole echo within 10000 ms \(0 of 64 bytes\)\) \| r1 1\.50, r2 1\.00, controller 2\.00 \|/);
  assert.match(document, /New connections per second: overlay\/socat \*\*0\.20\*\* \(by round: 0\.20, 0\.20, 0\.20\); overlay\/stunnel-pair \*\*0\.50\*\* \(by round: 0\.50, 0\.50, 0\.50\)\./);
  assert.equal(connectionRateRatio(run(), 'overlay', 'stunnel-pair')!.median, 0.5);
  assert.match(document, /Fairness: 8 connections on one path \(the overlay, and the stunnel pair as the baseline\)[^\n]*every 100 ms for 5 s/);
  assert.match(document, /New connections: 8 concurrent loops[^\n]*write 64 bytes[^\n]*for 5 s/);
  assert.match(document, /\(2 s of throughput and 1 s of round trips at 16 connections, then 1 s of new connections on each path that measures them\) warms/);
  const bare = renderOverlaySection(undefined, { ...run(), fairness: [], connectionRates: [] });
  assert.doesNotMatch(bare, /Longest stall \(ms\)|Connections\/s|New connections per second:|1 s of new connections/);
});
