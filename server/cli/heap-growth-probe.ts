// How far a Node process started with given flags lets its heap grow past what it holds: a child process holds
// `heldMiB` of objects, then for `ms` milliseconds makes objects that live through a few young collections before they die (as
// a request's state does in a busy controller), reading its heap used after every batch. For node-flags.test.ts.
import { execFileSync } from 'node:child_process';

const child = `
globalThis.held = [];
for (let i = 0; i < Number(process.argv[1]) * 1024 * 1024 / 100; i++) held.push({ n: i, text: 'x' + i });
const recent = new Array(200000);
let at = 0;
let peak = 0;
const end = Date.now() + Number(process.argv[2]);
(function batch() {
  for (let i = 0; i < 20000; i++) {
    recent[at] = { id: at, name: 'n' + at, list: [at, at + 1] };
    at = (at + 1) % recent.length;
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  if (Date.now() < end) return setImmediate(batch);
  gc();
  gc();
  process.stdout.write(JSON.stringify({ heldBytes: process.memoryUsage().heapUsed, peakBytes: peak, recent: recent.length }));
})();
`;

export interface HeapGrowth {
  /** Heap used after two full collections at the end: what the process holds. */
  readonly heldBytes: number;
  /** The most heap used seen while it allocated. */
  readonly peakBytes: number;
}

export function heapGrowthProbe(nodeFlags: readonly string[], heldMiB: number, ms: number): HeapGrowth {
  const out = execFileSync(process.execPath, [...nodeFlags, '--expose-gc', '-e', child, String(heldMiB), String(ms)], { encoding: 'utf8', timeout: ms + 60_000 });
  const { heldBytes, peakBytes } = JSON.parse(out) as HeapGrowth;
  return { heldBytes, peakBytes };
}
