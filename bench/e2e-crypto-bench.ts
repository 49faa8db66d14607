// End-to-end encryption's cost: 64 KiB Data bodies sealed and opened through common/edge-protocol/e2e-crypto.ts
// against a plain copy of the same bodies (the named baseline), and whole Data frames encrypted against plain ones, in
// the same run, rounds alternating. Writes its marked
// section of bench/RESULTS.md and prints the same. Takes seconds.
// Env: BENCH_E2E_MB (MB of plaintext per measurement, default 256, up to 4096), BENCH_E2E_ROUNDS (1 to 9, default 3).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newKeyPair, openE2eStreams, streamOverheadBytes } from '../common/edge-protocol/e2e-crypto.ts';
import { EdgeFrameReader, encodeEdgeMessage, type EdgeMessage } from '../common/edge-protocol/edge-frame-codec.ts';
import { buildMessage, parseMessage } from '../common/edge-protocol/edge-messages.ts';
import { encodeSealedDataFrame } from '../common/edge-protocol/sealed-data-frame.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { cryptoSummary, mbPerSecond, renderCryptoSection, variantNames, type CryptoBenchRun, type CryptoSample, type VariantName } from './e2e-crypto-bench-report.ts';

const bodyBytes = 64 * 1024;
const distinctBodies = 16;

type Pass = (bodies: readonly Buffer[], count: number) => Buffer[];

/** Copies each body into a new buffer and out again: what the plain path does with a Data body at each end. */
const plainPass: Pass = (bodies, count) => {
  const last: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const body = bodies[i % bodies.length]!;
    const written = Buffer.allocUnsafe(body.length);
    body.copy(written);
    const read = Buffer.allocUnsafe(written.length);
    written.copy(read);
    if (i >= count - bodies.length) last.push(read);
  }
  return last;
};

function streams() {
  const dialerKeys = newKeyPair();
  const hostKeys = newKeyPair();
  const dialer = openE2eStreams('dialer', dialerKeys, hostKeys.publicKey);
  const host = openE2eStreams('host', hostKeys, dialerKeys.publicKey);
  host.decryptor.receive(dialer.encryptor.header);
  return { encryptor: dialer.encryptor, decryptor: host.decryptor };
}

const e2ePass: Pass = (bodies, count) => {
  const { encryptor, decryptor } = streams();
  const last: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const opened = decryptor.receive(encryptor.encrypt(bodies[i % bodies.length]!))!;
    if (i >= count - bodies.length) last.push(opened);
  }
  return last;
};

const e2eIntoPass: Pass = (bodies, count) => {
  const { encryptor, decryptor } = streams();
  const sealed = Buffer.allocUnsafe(bodyBytes + streamOverheadBytes);
  const opened = Buffer.allocUnsafe(bodyBytes);
  const last: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    encryptor.encryptInto(bodies[i % bodies.length]!, sealed);
    decryptor.decryptInto(sealed, opened);
    if (i >= count - bodies.length) last.push(Buffer.from(opened));
  }
  return last;
};

/** Reads one frame back and parses it as Data, as a receiving end does. */
function readData(reader: EdgeFrameReader, frame: Buffer): Buffer {
  reader.append(frame);
  return parseMessage.data(reader.next() as EdgeMessage).payload;
}

const framePlainPass: Pass = (bodies, count) => {
  const reader = new EdgeFrameReader();
  const last: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const frame = encodeEdgeMessage(buildMessage.data({ sequence: i + 1, connId: 1, payload: bodies[i % bodies.length]! }));
    const payload = readData(reader, frame);
    const out = Buffer.allocUnsafe(payload.length);
    payload.copy(out);
    if (i >= count - bodies.length) last.push(out);
  }
  return last;
};

const frameE2ePass: Pass = (bodies, count) => {
  const { encryptor, decryptor } = streams();
  const reader = new EdgeFrameReader();
  const last: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const frame = encodeSealedDataFrame({ sequence: i + 1, connId: 1 }, bodies[i % bodies.length]!, encryptor);
    const opened = decryptor.receive(readData(reader, frame))!;
    if (i >= count - bodies.length) last.push(opened);
  }
  return last;
};

const passes: Record<VariantName, Pass> = { plain: plainPass, e2e: e2ePass, 'e2e-into': e2eIntoPass, 'frame-plain': framePlainPass, 'frame-e2e': frameE2ePass };

function measure(round: number, variant: VariantName, bodies: readonly Buffer[], count: number): CryptoSample {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const last = passes[variant](bodies, count);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  // The last body of each kind must come out as it went in; a pass that skipped work would be caught here.
  last.forEach((out, i) => {
    if (!out.equals(bodies[(count - last.length + i) % bodies.length]!)) throw new Error(`${variant}: a body came out changed`);
  });
  return { round, variant, bytes: count * bodyBytes, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

async function main(): Promise<void> {
  const megabytes = positiveInteger('BENCH_E2E_MB', 256, 4096, 'MB');
  const rounds = positiveInteger('BENCH_E2E_ROUNDS', 3, 9, 'rounds');
  const count = Math.ceil((megabytes * 1e6) / bodyBytes);
  const bodies = Array.from({ length: distinctBodies }, () => randomBytes(bodyBytes));
  const loadAverage = loadavg()[0] ?? 0;
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  progress(`warming up (${Math.ceil(count / 8)} bodies per variant)`);
  for (const variant of variantNames) measure(0, variant, bodies, Math.ceil(count / 8));
  const samples: CryptoSample[] = [];
  const orders: VariantName[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? [...variantNames] : [...variantNames].reverse();
    orders.push(order);
    for (const variant of order) {
      const sample = measure(round, variant, bodies, count);
      samples.push(sample);
      progress(`round ${round}: ${variant} ${mbPerSecond(sample).toFixed(0)} MB/s`);
    }
  }
  const { version } = createRequire(import.meta.url)('sodium-native/package.json') as { version: string };
  const run: CryptoBenchRun = {
    date,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    libsodium: `sodium-native ${version}`,
    bodyBytes,
    megabytesPerMeasurement: megabytes,
    rounds,
    orders,
    samples,
  };
  const resultsFile = join(fileURLToPath(new URL('.', import.meta.url)), 'RESULTS.md');
  writeFileSync(resultsFile, renderCryptoSection(readPreviousResults(resultsFile), run));
  process.stdout.write(`${cryptoSummary(run)}\n\nWritten to ${resultsFile} (end-to-end encryption section)\n`);
}

main().catch((error: Error) => {
  progress(`failed: ${error.stack ?? String(error)}`);
  process.exit(1);
});
