// Where a process's CPU went, from a V8 .cpuprofile (what BENCH_CPU_PROF writes): self time summed by function and
// script, as shares of the busy time (idle and the profiler's own program/GC roots kept apart, since garbage
// collection is work the process did). Pure: summarize() takes the parsed profile; the command line reads the files.
//   node --import ./node_modules/tsx/dist/loader.mjs bench/cpu-profile-summary.ts <file.cpuprofile>... [--top N]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface FunctionShare {
  /** `name (script:line)`, `(garbage collector)`, `(program)`. */
  readonly name: string;
  readonly selfMs: number;
  /** Of the busy time (everything but `(idle)`). */
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly idleMs: number;
  readonly busyMs: number;
  readonly functions: readonly FunctionShare[];
}

/** The script's name without its folders and query (a `node:` builtin keeps its scheme). */
function scriptOf(url: string): string {
  if (url === '') return '';
  const bare = url.replace(/\?.*$/, '');
  return bare.startsWith('node:') ? bare : basename(bare);
}

function labelOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  const script = scriptOf(url);
  return script === '' ? name : `${name} (${script}:${lineNumber + 1})`;
}

/** Self time by function, largest first; sampled time is attributed to the node each sample landed in. */
export function summarize(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let idleUs = 0;
  let totalUs = 0;
  for (let index = 0; index < samples.length; index++) {
    const node = byId.get(samples[index]!);
    // A sample's time is the gap to the next one (V8's own attribution); the last sample gets none.
    const us = Math.max(0, deltas[index + 1] ?? 0);
    if (!node) continue;
    totalUs += us;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const label = labelOf(node);
    selfUs.set(label, (selfUs.get(label) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const functions = [...selfUs.entries()]
    .map(([name, us]) => ({ name, selfMs: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }))
    .sort((a, b) => b.selfMs - a.selfMs);
  return { totalMs: totalUs / 1000, idleMs: idleUs / 1000, busyMs: busyUs / 1000, functions };
}

/** A few lines: busy time, then the `top` functions by self time with their share. */
export function formatSummary(title: string, summary: ProfileSummary, top = 25): string {
  const lines = [`${title}: busy ${summary.busyMs.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms sampled`];
  for (const { name, selfMs, share } of summary.functions.slice(0, top)) {
    lines.push(`  ${(share * 100).toFixed(1).padStart(5)}%  ${selfMs.toFixed(0).padStart(7)} ms  ${name}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const files = topAt >= 0 ? args.filter((_, index) => index !== topAt && index !== topAt + 1) : args;
  if (files.length === 0 || !(Number.isInteger(top) && top > 0)) {
    process.stderr.write('usage: cpu-profile-summary.ts <file.cpuprofile>... [--top N]\n');
    process.exit(2);
  }
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    process.stdout.write(`${formatSummary(basename(file), summarize(profile), top)}\n\n`);
  }
}
