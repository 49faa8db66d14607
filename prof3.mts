import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EdgewardCluster } from './bench/edgeward-cluster.ts';
import { runWrk } from './bench/wrk-runner.ts';
const root = mkdtempSync(join(tmpdir(), 'prof3-'));
const stops: Array<() => Promise<void>> = [];
const cluster = await EdgewardCluster.start(root, (stop) => stops.push(stop), () => undefined, {});
try {
  const leader = await cluster.leader(30000);
  console.log('leader', leader, 'pids', cluster.pids());
  const target = await cluster.loadTarget(leader);
  const f = await runWrk({ url: target.url, connections: 16, threads: 1, seconds: 8, method: 'POST', headers: target.headers, script: 'bench/wrk/unique-writes.lua', env: { WRK_WRITE_KIND: target.kind, WRK_NAME_PREFIX: `x-${Date.now()}` } });
  console.log('w/s', (f.requests - f.httpErrors) / 8);
} finally {
  for (const stop of stops) await stop().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}
process.exit(0);
