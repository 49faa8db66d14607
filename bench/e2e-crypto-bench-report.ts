// Pure helpers for bench/e2e-crypto-bench.ts: every round's figures for the plain copy (the baseline) and the
// end-to-end encrypted path (common/edge-protocol/e2e-crypto.ts) in, the text of the marked RESULTS.md section out:
// MB/s and CPU per MB, medians over the rounds, every round, and encrypted over plain.
import { replaceSection } from './raft-bench-report.ts';

/** What was measured, in the order the table shows them. */
export const variantNames = ['plain', 'e2e', 'e2e-into', 'frame-plain', 'frame-e2e'] as const;
export type VariantName = (typeof variantNames)[number];

export const variantLabels: Readonly<Record<VariantName, string>> = {
  plain: 'plain copy (baseline): each body copied into a new buffer (as a frame is written) and out again (as it is read)',
  e2e: 'encrypted: `encrypt()` then `receive()`, each allocating its output (as a router tunnel or SDK would)',
  'e2e-into': 'encrypted into reused buffers: `encryptInto()` then `decryptInto()`, no allocation',
  'frame-plain': 'plain Data frames (baseline of the next): `encodeEdgeMessage(buildMessage.data(...))`, read back by the frame reader, parsed, the payload copied out',
  'frame-e2e': 'encrypted Data frames: `encodeSealedDataFrame()` (sealed into the frame), read back, parsed, opened by `receive()`',
};

/** What each variant is compared with. */
const baselineOf: Readonly<Record<VariantName, VariantName>> = { plain: 'plain', e2e: 'plain', 'e2e-into': 'plain', 'frame-plain': 'frame-plain', 'frame-e2e': 'frame-plain' };

export interface CryptoSample {
  readonly round: number;
  readonly variant: VariantName;
  /** Plaintext bytes through the variant (each both ways: sealed and opened, or copied in and out). */
  readonly bytes: number;
  readonly seconds: number;
  /** User + system CPU of this process over the measurement. */
  readonly cpuSeconds: number;
}

export interface CryptoBenchRun {
  /** ISO 8601, UTC. */
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string; readonly loadAverage: number };
  readonly libsodium: string;
  readonly bodyBytes: number;
  readonly megabytesPerMeasurement: number;
  readonly rounds: number;
  readonly orders: readonly (readonly VariantName[])[];
  readonly samples: readonly CryptoSample[];
}

export const sectionName = 'e2e-crypto';
const heading = '## End-to-end encryption: 64 KiB Data bodies sealed and opened, against a plain copy';

const megabytes = (bytes: number) => bytes / 1e6;
export const mbPerSecond = (sample: CryptoSample) => megabytes(sample.bytes) / sample.seconds;
export const cpuMsPerMb = (sample: CryptoSample) => (sample.cpuSeconds * 1000) / megabytes(sample.bytes);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const of = (run: CryptoBenchRun, variant: VariantName) => run.samples.filter((sample) => sample.variant === variant).sort((a, b) => a.round - b.round);

/** Median MB/s and CPU ms per MB of a variant over the rounds. */
export function variantMedians(run: CryptoBenchRun, variant: VariantName): { mbPerSecond: number; cpuMsPerMb: number } {
  const samples = of(run, variant);
  return { mbPerSecond: median(samples.map(mbPerSecond)), cpuMsPerMb: median(samples.map(cpuMsPerMb)) };
}

/** A variant's CPU per MB over its baseline's (the plain copy, or plain frames for frame-e2e), from the medians. */
export function cpuRatio(run: CryptoBenchRun, variant: VariantName): number {
  return variantMedians(run, variant).cpuMsPerMb / variantMedians(run, baselineOf[variant]).cpuMsPerMb;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ms = (value: number) => fixed(value, value >= 10 ? 1 : 3);

export function cryptoSummary(run: CryptoBenchRun): string {
  const rows = variantNames.map((variant) => {
    const medians = variantMedians(run, variant);
    const samples = of(run, variant);
    return `| ${variant} | ${fixed(medians.mbPerSecond, 0)} | ${samples.map((sample) => fixed(mbPerSecond(sample), 0)).join(', ')} | ${ms(medians.cpuMsPerMb)} | ${samples.map((sample) => ms(cpuMsPerMb(sample))).join(', ')} |`;
  });
  const e2e = variantMedians(run, 'e2e');
  const plain = variantMedians(run, 'plain');
  const byRound = (variant: VariantName) =>
    of(run, variant)
      .map((sample) => {
        const base = of(run, baselineOf[variant]).find((other) => other.round === sample.round);
        return base ? fixed(cpuMsPerMb(sample) / cpuMsPerMb(base), 1) : 'n/a';
      })
      .join(', ');
  const ratio = (variant: VariantName) => `${variant} **${fixed(cpuRatio(run, variant), 1)}x** (by round: ${byRound(variant)})`;
  return [
    `Date: ${run.date}`,
    `Machine: ${run.machine.cpus} CPUs (${run.machine.cpuModel}), ${run.machine.os}, Node ${run.machine.node}, ${run.libsodium}; load average ${run.machine.loadAverage.toFixed(2)} at start.`,
    `How measured: one process, one thread. Each measurement pushes ${run.megabytesPerMeasurement} MB of plaintext, as ${run.bodyBytes / 1024} KiB Data bodies (16 distinct random bodies in turn), through one of:`,
    ...variantNames.map((variant) => `- **${variant}**: ${variantLabels[variant]}.`),
    `Encrypted variants run one secretstream (crypto_kx session keys of a dialer and a host; the 24-byte header first, then one message per body, tag 0), the sealing and the opening both in this process, so a figure is the CPU of both ends together. Every opened body is checked against the original at the end of a measurement.`,
    `MB = 10^6 bytes of plaintext; CPU = user + system time of the process (process.cpuUsage). ${run.rounds} rounds, the order of the variants alternating (${run.orders.map((order) => order.join(' → ')).join('; ')}); figures are medians over the rounds.`,
    '',
    '| Variant | MB/s | MB/s by round | CPU (ms/MB) | CPU by round |',
    '|---|---:|---|---:|---|',
    ...rows,
    '',
    `Encrypted over plain, CPU per MB: ${ratio('e2e')} and ${ratio('e2e-into')} over the plain copy; ${ratio('frame-e2e')} over plain frames.`,
    `What encryption adds to a dial's path: **${ms(e2e.cpuMsPerMb - plain.cpuMsPerMb)} ms of CPU per MB** (sealing at one end and opening at the other, beyond the copies the plain path makes anyway; ` +
      `${ms(variantMedians(run, 'frame-e2e').cpuMsPerMb - variantMedians(run, 'frame-plain').cpuMsPerMb)} ms/MB as whole frames). ` +
      "The issue's target (the encrypted SDK path within 1.5x the CPU per MB of the plain one) is on the whole path, which also frames, writes TLS and forwards through the routers: " +
      'set this figure beside the CPU per MB of every process on the plain path (the overlay section); it is what the encrypted path adds to that.',
  ].join('\n');
}

/** `previous` (RESULTS.md as it stands, or undefined) with this benchmark's section replaced or appended. */
export function renderCryptoSection(previous: string | undefined, run: CryptoBenchRun): string {
  return replaceSection(previous ?? '# Benchmark results\n', sectionName, heading, cryptoSummary(run));
}
