// In-process, same run, alternating rounds (issue 42, lists): the identities a relationship list answers
// (`/edge-router-policies/{id}/identities`, `/edge-routers/{id}/identities`, `/services/{id}/identities`, ...) at
// N identities (default 1,000,000) in 1,000 attribute groups: every identity matched against the policies (before)
// against the role attribute index (server/store/role-selection.ts, after), CPU per call and rows given. Prints
// markdown for the list notes of bench/RESULTS.md. Env: BENCH_RELATION_ROWS (default 1000000), BENCH_RELATION_ROUNDS
// (default 3).
import { rolesMatch } from '../common/policy/role-match.ts';
import { EntityTable } from '../server/store/entity-table.ts';
import { roleAttributeIndex, rowsSelected, type RoleSelector } from '../server/store/role-selection.ts';
import { positiveInteger, progress } from './bench-env.ts';

const rows = positiveInteger('BENCH_RELATION_ROWS', 1_000_000, 2_000_000, 'rows');
const rounds = positiveInteger('BENCH_RELATION_ROUNDS', 3, 9, 'rounds');
const watchdog = setTimeout(() => {
  progress('relationship list bench: watchdog after 10 minutes');
  process.exit(1);
}, 10 * 60_000);

interface Holder {
  readonly id: string;
  readonly roleAttributes: readonly string[];
}

const identities = new EntityTable<Holder>('identities').multiValueIndex(roleAttributeIndex, (row) => row.roleAttributes);
for (let i = 0; i < rows; i++) identities.put({ id: `id-${((i * 2654435761) >>> 0).toString(36).padStart(7, '0')}-${i}`, roleAttributes: [`grp-${i % 1000}`, `region-${i % 7}`] });
progress(`relationship list bench: ${rows} identities loaded`);

const shapes: Record<string, RoleSelector[]> = {
  'one policy, one group (`#grp-42`)': [{ roles: ['#grp-42'], semantic: 'AnyOf' }],
  'one policy, AllOf group and region': [{ roles: ['#grp-42', '#region-3'], semantic: 'AllOf' }],
  'a router selected by 5 policies of one group each': [0, 1, 2, 3, 4].map((k) => ({ roles: [`#grp-${k * 200}`], semantic: 'AnyOf' as const })),
  'one policy, one region (1/7 of all)': [{ roles: ['#region-3'], semantic: 'AnyOf' }],
};
const scan = (selectors: readonly RoleSelector[]) => identities.all().filter((row) => selectors.some((selector) => rolesMatch(selector.roles, selector.semantic, row)));
const cpuPerCall = (calls: number, call: () => number) => {
  const cpu = process.cpuUsage();
  let given = 0;
  for (let k = 0; k < calls; k++) given = call();
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000 / calls, given };
};

const lines = [`In-process, ${rows.toLocaleString('en-US')} identities, ${rounds} rounds alternating the order, CPU per call:`, '', '| shape | round | every identity matched (before) ms | role index (after) ms | after / before | rows given |', '|---|---:|---:|---:|---:|---:|'];
for (let round = 1; round <= rounds; round++) {
  for (const [shape, selectors] of Object.entries(shapes)) {
    const runs = { before: () => cpuPerCall(3, () => scan(selectors).length), after: () => cpuPerCall(20, () => rowsSelected(identities, selectors).length) };
    const order = round % 2 === 1 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    const result: Record<string, { ms: number; given: number }> = {};
    for (const which of order) result[which] = runs[which]();
    if (result.before!.given !== result.after!.given) throw new Error(`${shape}: the index gave ${result.after!.given} rows, the scan ${result.before!.given}`);
    progress(`round ${round}: ${shape}: before ${result.before!.ms.toFixed(2)} ms, after ${result.after!.ms.toFixed(2)} ms`);
    lines.push(`| ${shape} | ${round} | ${result.before!.ms.toFixed(2)} | ${result.after!.ms.toFixed(2)} | ${(result.after!.ms / result.before!.ms).toFixed(3)}x | ${result.after!.given} |`);
  }
}
clearTimeout(watchdog);
process.stdout.write(`${lines.join('\n')}\n`);
