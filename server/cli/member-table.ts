// The `agent cluster list` table, drawn the way the real controller's CLI draws it (rounded box, upper-case
// header, booleans as true/false), so operators' eyes and scripts find what they expect.
import type { MemberRow } from '../cluster/cluster-service.ts';

const columns: Array<[string, (row: MemberRow) => string]> = [
  ['ID', (row) => row.id],
  ['ADDRESS', (row) => row.address],
  ['VOTER', (row) => String(row.voter)],
  ['LEADER', (row) => String(row.leader)],
  ['VERSION', (row) => row.version],
  ['CONNECTED', (row) => String(row.connected)],
  ['PREFERRED', (row) => String(row.preferred)],
];

export function memberTable(rows: readonly MemberRow[]): string {
  const cells = rows.map((row) => columns.map(([, value]) => value(row)));
  const widths = columns.map(([title], i) => Math.max(title.length, ...cells.map((line) => line[i]!.length)));
  const rule = (left: string, middle: string, right: string) => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}`;
  const line = (values: string[]) => `│${values.map((value, i) => ` ${value.padEnd(widths[i]!)} `).join('│')}│`;
  return [rule('╭', '┬', '╮'), line(columns.map(([title]) => title)), rule('├', '┼', '┤'), ...cells.map(line), rule('╰', '┴', '╯')].join('\n') + '\n';
}
