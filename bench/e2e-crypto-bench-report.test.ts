import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuRatio, renderCryptoSection, variantMedians, type CryptoBenchRun, type CryptoSample, type VariantName } from './e2e-crypto-bench-report.ts';

const sample = (round: number, variant: VariantName, seconds: number, cpuSeconds: number): CryptoSample => ({ round, variant, bytes: 100e6, seconds, cpuSeconds });

const run: CryptoBenchRun = {
  date: '2026-11-29T10:00:00Z',
  machine: { cpus: 2, cpuModel: 'AMD EPYC', node: 'v20.20.2', os: 'Linux 6', loadAverage: 0.5 },
  libsodium: 'sodium-native 5.1.0',
  bodyBytes: 65536,
  megabytesPerMeasurement: 100,
  rounds: 3,
  orders: [['plain', 'e2e', 'e2e-into'], ['e2e-into', 'e2e', 'plain'], ['plain', 'e2e', 'e2e-into']],
  samples: [
    sample(1, 'plain', 0.1, 0.1), sample(1, 'e2e', 0.25, 0.25), sample(1, 'e2e-into', 0.2, 0.2),
    sample(2, 'plain', 0.2, 0.2), sample(2, 'e2e', 0.4, 0.4), sample(2, 'e2e-into', 0.3, 0.3),
    sample(3, 'plain', 0.125, 0.125), sample(3, 'e2e', 0.3, 0.3), sample(3, 'e2e-into', 0.25, 0.25),
    ...[1, 2, 3].flatMap((round) => [sample(round, 'frame-plain', 0.2, 0.2), sample(round, 'frame-e2e', 0.3, 0.3)]),
  ],
};

test('medians over the rounds: MB/s and CPU per MB; encrypted over plain from the medians', () => {
  assert.deepEqual(variantMedians(run, 'plain'), { mbPerSecond: 800, cpuMsPerMb: 1.25 });
  const e2e = variantMedians(run, 'e2e');
  assert.ok(Math.abs(e2e.mbPerSecond - 1000 / 3) < 1e-9 && Math.abs(e2e.cpuMsPerMb - 3) < 1e-9, JSON.stringify(e2e));
  assert.ok(Math.abs(cpuRatio(run, 'e2e') - 2.4) < 1e-9);
});

test('the section names the baseline, shows every round, and replaces itself in place keeping the other sections', () => {
  const first = renderCryptoSection('# Benchmark results\n\n<!-- overlay-bench:start -->\noverlay\n<!-- overlay-bench:end -->\n', run);
  assert.match(first, /<!-- e2e-crypto-bench:start -->\n## End-to-end encryption: 64 KiB Data bodies sealed and opened, against a plain copy\n/);
  assert.match(first, /\| plain \| 800 \| 1000, 500, 800 \| 1\.250 \| 1\.000, 2\.000, 1\.250 \|/);
  assert.match(first, /\| e2e \| 333 \| 400, 250, 333 \| 3\.000 \| 2\.500, 4\.000, 3\.000 \|/);
  assert.match(first, /e2e \*\*2\.4x\*\* \(by round: 2\.5, 2\.0, 2\.4\) and e2e-into \*\*2\.0x\*\*/);
  assert.match(first, /frame-e2e \*\*1\.5x\*\* \(by round: 1\.5, 1\.5, 1\.5\) over plain frames/);
  assert.match(first, /\*\*1\.750 ms of CPU per MB\*\* \(sealing at one end and opening at the other, beyond the copies the plain path makes anyway; 1\.000 ms\/MB as whole frames\)/);
  assert.match(first, /plain copy \(baseline\)/);
  const second = renderCryptoSection(first.replace('overlay\n', 'overlay, kept\n'), { ...run, date: '2026-11-30T00:00:00Z' });
  assert.ok(second.includes('overlay, kept') && second.includes('2026-11-30T00:00:00Z') && !second.includes('2026-11-29T10:00:00Z'));
  assert.equal(second.split('<!-- e2e-crypto-bench:start -->').length, 2, 'one section');
});
