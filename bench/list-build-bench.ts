// In-process, same run, alternating rounds (issue 42, lists): (1) the longest event-loop block while the name order
// (server/store/sorted-rows.ts) and the text index (substring-search.ts) are first built at N rows (default 1,000,000)
// in one piece (the build before: inside the first request) against in slices through the setImmediate driver
// (after), seen by a 10 ms ticker; (2) the routers an identity may use at 10x "Large" (5,000 routers, 2,500 edge
// router policies, an identity in one of 1,000 groups): the walk over every policy and router (edge-router-access.ts,
// before) against the index (identity-router-index.ts, after), CPU per call. Prints markdown for the list notes of
// bench/RESULTS.md. Env: BENCH_LIST_BUILD_ROWS (default 1000000), BENCH_LIST_BUILD_ROUNDS (default 2).
import { EntityTable } from '../server/store/entity-table.ts';
import { SortedRows } from '../server/store/sorted-rows.ts';
import { SubstringSearch } from '../server/store/substring-search.ts';
import { slicesOnImmediate } from '../server/web/routes/slices-on-immediate.ts';
import { routersForIdentity } from '../server/edge/edge-router-access.ts';
import { IdentityRouterIndex } from '../server/edge/identity-router-index.ts';
import type { EdgeRouter } from '../server/model/router-entities.ts';
import type { EdgeRouterPolicy } from '../server/model/edge-router-policy-entities.ts';
import { positiveInteger, progress } from './bench-env.ts';

const rows = positiveInteger('BENCH_LIST_BUILD_ROWS', 1_000_000, 2_000_000, 'rows');
const rounds = positiveInteger('BENCH_LIST_BUILD_ROUNDS', 2, 9, 'rounds');
const watchdog = setTimeout(() => {
  progress('list build bench: watchdog after 20 minutes');
  process.exit(1);
}, 20 * 60_000);

interface Named {
  readonly id: string;
  readonly name: string;
}

const table = new EntityTable<Named>('named');
for (let i = 0; i < rows; i++) table.put({ id: `id-${((i * 2654435761) >>> 0).toString(36).padStart(7, '0')}-${i}`, name: `list-id-${i}` });
const eachRow = (visit: (row: Named) => void) => table.eachRow((row) => void visit(row));
const isCurrent = (row: Named) => table.get(row.id) === row;

/** Runs `work` (which resolves once built) beside a 10 ms ticker: the longest gap between ticks, wall ms, CPU ms. */
async function blocked(work: () => Promise<void>): Promise<{ longestMs: number; wallMs: number; cpuMs: number }> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  await new Promise((done) => setTimeout(done, 50));
  const cpu = process.cpuUsage();
  const began = performance.now();
  await work();
  const wallMs = performance.now() - began;
  const used = process.cpuUsage(cpu);
  await new Promise((done) => setTimeout(done, 30));
  clearInterval(ticker);
  return { longestMs: longest, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const until = (ready: () => boolean) =>
  new Promise<void>((done) => {
    const poll = () => (ready() ? done() : setImmediate(poll));
    setImmediate(poll);
  });

const cases = {
  'name order, one piece': () => blocked(async () => new SortedRows({ key: (row: Named) => row.name, eachRow }).each(false, () => false)),
  'name order, slices': () =>
    blocked(async () => {
      const sorted = new SortedRows({ key: (row: Named) => row.name, eachRow, schedule: slicesOnImmediate });
      await until(() => sorted.ready());
    }),
  'text index, one piece': () => blocked(async () => void new SubstringSearch({ key: (row: Named) => row.name, isCurrent, eachRow }).search('contains', '-4242', 1e9)),
  'text index, slices': () =>
    blocked(async () => {
      const search = new SubstringSearch({ key: (row: Named) => row.name, isCurrent, eachRow, schedule: slicesOnImmediate });
      await until(() => search.ready());
    }),
};

const routers = Array.from({ length: 5000 }, (_, i) => ({ id: `r-${String(i).padStart(5, '0')}`, name: `er-${i}`, roleAttributes: [`scale-er-${i % 500}`], isTunnelerEnabled: false, isTransitRouter: false })) as unknown as EdgeRouter[];
const policies = Array.from({ length: 2500 }, (_, i) => ({ id: `p-${i}`, name: `erp-${i}`, semantic: 'AnyOf', identityRoles: [`#grp-${i % 1000}`], edgeRouterRoles: [`#scale-er-${i % 500}`] })) as unknown as EdgeRouterPolicy[];
const cpuPerCall = (calls: number, call: (k: number) => number) => {
  const cpu = process.cpuUsage();
  let granted = 0;
  for (let k = 0; k < calls; k++) granted = call(k);
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000 / calls, granted };
};
const routerCases = {
  'walk over every policy and router (before)': () => cpuPerCall(20, (k) => routersForIdentity({ id: `x${k}`, roleAttributes: [`grp-${k % 1000}`] }, { routers, policies }).size),
  'index, built in the first call (after, first question after a change)': () => cpuPerCall(1, (k) => new IdentityRouterIndex({ routers, policies }).routerIdsFor({ id: `x${k}`, roleAttributes: [`grp-${k % 1000}`] }).size),
  'index, kept (after)': (() => {
    const index = new IdentityRouterIndex({ routers, policies });
    return () => cpuPerCall(2000, (k) => index.routerIdsFor({ id: `x${k}`, roleAttributes: [`grp-${k % 1000}`] }).size);
  })(),
};

const lines: string[] = [`In-process, ${rows.toLocaleString('en-US')} rows, ${rounds} rounds alternating the order:`, '', '| case | round | longest block ms (10 ms ticker) | wall ms | CPU ms |', '|---|---:|---:|---:|---:|'];
const names = Object.keys(cases) as (keyof typeof cases)[];
for (let round = 1; round <= rounds; round++) {
  for (const name of round % 2 === 1 ? names : [...names].reverse()) {
    global.gc?.();
    const result = await cases[name]();
    progress(`round ${round}: ${name}: longest block ${result.longestMs.toFixed(0)} ms, wall ${result.wallMs.toFixed(0)} ms, CPU ${result.cpuMs.toFixed(0)} ms`);
    lines.push(`| ${name} | ${round} | ${result.longestMs.toFixed(1)} | ${result.wallMs.toFixed(0)} | ${result.cpuMs.toFixed(0)} |`);
  }
}
lines.push('', 'Routers an identity may use, 5,000 routers, 2,500 edge router policies (AnyOf, one identity group and one router group each), CPU per call:', '', '| case | round | CPU ms per call | routers granted |', '|---|---:|---:|---:|');
const routerNames = Object.keys(routerCases) as (keyof typeof routerCases)[];
for (let round = 1; round <= rounds; round++) {
  for (const name of round % 2 === 1 ? routerNames : [...routerNames].reverse()) {
    const result = routerCases[name]();
    progress(`round ${round}: ${name}: ${result.ms.toFixed(3)} ms per call, ${result.granted} routers`);
    lines.push(`| ${name} | ${round} | ${result.ms.toFixed(3)} | ${result.granted} |`);
  }
}
clearTimeout(watchdog);
process.stdout.write(`${lines.join('\n')}\n`);
