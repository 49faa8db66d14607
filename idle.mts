import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
// scratch: idle CPU of a 3-node cluster, then a light load
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EdgewardCluster } from './bench/edgeward-cluster.ts';
import { processCpuSeconds } from './bench/process-cpu.ts';
import { runWrk } from './bench/wrk-runner.ts';
const root = mkdtempSync(join(tmpdir(), 'idle-'));
const stops: Array<() => Promise<void>> = [];
const cluster = await EdgewardCluster.start(root, (stop) => stops.push(stop), () => undefined);
try {
  const pids = cluster.pids();
  await new Promise((r) => setTimeout(r, 3000));
  const a = pids.map(processCpuSeconds);
  await new Promise((r) => setTimeout(r, 5000));
  const b = pids.map(processCpuSeconds);
  console.log('idle CPU % per node over 5 s:', a.map((x, i) => ((b[i]! - x!) / 5 * 100).toFixed(1)));
  const leader = await cluster.leader(30000);
  const target = await cluster.loadTarget(leader);
  for (const c of [16, 64, 16, 64]) {
    const threads = (pid: number) => Object.fromEntries(require('node:fs').readdirSync(`/proc/${pid}/task`).map((tid: string) => { const st = require('node:fs').readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); const f = st.slice(st.lastIndexOf(')') + 2).split(' '); return [`${tid}:${st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))}`, (Number(f[11]) + Number(f[12])) / 100]; }));
    const tb = threads(pids[leader]!);
    const before = pids.map(processCpuSeconds);
    const f = await runWrk({ url: target.url, connections: c, threads: 1, seconds: 5, method: 'POST', headers: target.headers, script: 'bench/wrk/unique-writes.lua', env: { WRK_WRITE_KIND: target.kind, WRK_NAME_PREFIX: `x${c}-${Date.now()}` } });
    const after = pids.map(processCpuSeconds);
    const w = f.requests - f.httpErrors;
    const ta = threads(pids[leader]!);
    console.log('leader threads (cpu s):', JSON.stringify(Object.entries(ta).map(([k, v]) => [k, +(v - (tb[k] ?? 0)).toFixed(2)]).filter(([, v]) => (v as number) > 0.02)));
    console.log(`c=${c} ${(w / 5).toFixed(0)} w/s p50 ${f.p50Ms} p99 ${f.p99Ms}; CPU µs/write per node`, after.map((x, i) => (((x! - before[i]!) * 1e6) / w).toFixed(0)));
  }
} finally {
  for (const stop of stops) await stop().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}
process.exit(0);
