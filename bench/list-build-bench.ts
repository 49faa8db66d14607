// In-process, same run, alternating rounds (issue 42, lists): (1) the longest event-loop block while the name order
// (server/store/sorted-rows.ts) and the text index (substring-search.ts) are first built at N rows (default 1,000,000)
// in one piece (the build before: inside the first request) against in slices through the setImmediate driver
// (after), seen by a 10 ms ticker, and the text index without its trigram postings (before round 3) against with them;
// (2) text searches at N rows, CPU per search: the text index as before round 3 (indexOf over the joined names; for
// `icontains` over a lowercased copy) against its trigram postings (after), and what each holds per row; (3) the routers an identity may use at 10x "Large" (5,000 routers, 2,500 edge
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
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

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
  'text index without trigram postings (before round 3), one piece': () =>
    blocked(async () => void new SubstringSearch({ key: (row: Named) => row.name, isCurrent, eachRow, trigrams: false }).search('contains', '-4242', 1e9)),
  'text index, one piece': () => blocked(async () => void new SubstringSearch({ key: (row: Named) => row.name, isCurrent, eachRow }).search('contains', '-4242', 1e9)),
  'text index without trigram postings (before round 3), slices': () =>
    blocked(async () => {
      const search = new SubstringSearch({ key: (row: Named) => row.name, isCurrent, eachRow, trigrams: false, schedule: slicesOnImmediate });
      await until(() => search.ready());
    }),
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
// Text searches: the index as before round 3 (no postings; `icontains` on a lowercased copy) against with postings.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const heapAfterCollect = () => {
  collect();
  collect();
  // Typed arrays' contents are outside the V8 heap.
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};
const key = (row: Named) => row.name;
const maxHits = Math.floor(rows / 16);
const heapBare = heapAfterCollect();
const plain = new SubstringSearch({ key, isCurrent, eachRow, trigrams: false });
plain.search('contains', '-4242', 1);
const heapPlain = heapAfterCollect();
const lowercased = new SubstringSearch({ key: (row: Named) => row.name.toLowerCase(), isCurrent, eachRow, trigrams: false });
lowercased.search('contains', '-4242', 1);
const heapLowercased = heapAfterCollect();
const trigram = new SubstringSearch({ key, isCurrent, eachRow });
trigram.search('contains', '-4242', 1);
const heapTrigram = heapAfterCollect();
const perRow = (bytes: number) => (bytes / rows).toFixed(1);
const searches: { label: string; before: () => number | undefined; after: () => number | undefined }[] = [];
for (const [match, text] of [
  ['contains', '-4242'],
  ['contains', 'list-id-4242'],
  ['contains', '99999'],
  ['contains', 'zzz'],
  ['contains', '-42'],
  ['contains', '42'],
  ['startswith', 'list-id-4242'],
  ['endswith', '4242'],
  ['icontains', 'ID-4242'],
  ['icontains', 'LIST-ID-99'],
] as const) {
  const folded = match === 'icontains' ? text.toLowerCase() : text;
  searches.push({
    label: `${match} "${text}"`,
    before: () => (match === 'icontains' ? lowercased.search('contains', folded, maxHits) : plain.search(match, text, maxHits))?.length,
    after: () => (match === 'icontains' && !trigram.answersIcontains(text) ? lowercased.search('contains', folded, maxHits) : trigram.search(match, text, maxHits))?.length,
  });
}
const repeats = 20;
const cpuPerSearch = (search: () => number | undefined) => {
  const cpu = process.cpuUsage();
  let found: number | undefined;
  for (let k = 0; k < repeats; k++) found = search();
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000 / repeats, found };
};
const byRound = searches.map(() => ({ before: [] as number[], after: [] as number[], found: '' }));
for (let round = 1; round <= rounds; round++) {
  for (let i = 0; i < searches.length; i++) {
    const search = searches[i]!;
    for (const side of round % 2 === 1 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
      const result = cpuPerSearch(search[side]);
      byRound[i]![side].push(result.ms);
      if (side === 'after') byRound[i]!.found = result.found === undefined ? `> ${maxHits.toLocaleString('en-US')} (a scan)` : result.found.toLocaleString('en-US');
      progress(`round ${round}: ${search.label} ${side}: ${result.ms.toFixed(3)} ms CPU per search, ${result.found ?? 'not answered'}`);
    }
  }
}
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
lines.push(
  '',
  `Text searches, ${rows.toLocaleString('en-US')} names \`list-id-<i>\`, ${rounds} rounds alternating before and after, ${repeats} searches of each per round, at most ${maxHits.toLocaleString('en-US')} hits (a sixteenth, as lists ask); CPU ms per search:`,
  '',
  '| search | hits | before, by round | after, by round | after / before (means) |',
  '|---|---:|---|---|---:|',
  ...searches.map((search, i) => {
    const { before, after, found } = byRound[i]!;
    return `| \`${search.label}\` | ${found} | ${before.map((ms) => ms.toFixed(2)).join(', ')} | ${after.map((ms) => ms.toFixed(2)).join(', ')} | ${(mean(after) / mean(before)).toFixed(3)}x |`;
  }),
  '',
  `Held per row (V8 heap and array buffers after full collections, built against not built): the index without postings ${perRow(heapPlain - heapBare)} B, its lowercased copy ${perRow(heapLowercased - heapPlain)} B, the index with postings ${perRow(heapTrigram - heapLowercased)} B (postings arrays alone ${perRow(trigram.postingsBytes)} B).`,
);

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
