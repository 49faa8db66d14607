// What `edgeward edge` prints: tables in the real CLI's rounded-box style by default, the API's `data` as JSON or
// YAML on request, and errors in one form (`error: <code>: <message>` and the cause under it). Pure: values in,
// text out.
import { stringify as yamlStringify } from 'yaml';
import type { Column } from './edge-entities.ts';
import type { ApiFailure, EdgeFailure } from './edge-errors.ts';

export type OutputFormat = 'table' | 'json' | 'yaml';

/** One cell: lists joined with commas, booleans and numbers as written, nothing for null; never a line break. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/[\r\n\t]+/g, ' ');
}

export function renderTable(columns: readonly Column[], rows: readonly Record<string, unknown>[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column.value(row))));
  const widths = columns.map((column, i) => Math.max(column.title.length, ...cells.map((line) => line[i]!.length)));
  const rule = (left: string, middle: string, right: string) => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}`;
  const line = (values: readonly string[]) => `│${values.map((value, i) => ` ${value.padEnd(widths[i]!)} `).join('│')}│`;
  return [rule('╭', '┬', '╮'), line(columns.map((column) => column.title)), rule('├', '┼', '┤'), ...cells.map(line), rule('╰', '┴', '╯')].join('\n') + '\n';
}

/** A list as a table with the real CLI's footer: `results: 1-3 of 3`, or `results: none`. */
export function renderList(columns: readonly Column[], rows: readonly Record<string, unknown>[], totalCount: number, offset = 0): string {
  if (rows.length === 0) return `results: none${totalCount > 0 ? ` (of ${totalCount})` : ''}\n`;
  return `${renderTable(columns, rows)}results: ${offset + 1}-${offset + rows.length} of ${totalCount}\n`;
}

/** The API's `data` as a document: pretty JSON or YAML, ending in a newline. */
export function renderData(data: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : yamlStringify(data);
}

/** The API's error envelope as the operator reads it: the code and message, then the cause and the request id. */
export function renderApiFailure(failure: ApiFailure): string {
  const lines = [`error: ${failure.code}: ${failure.apiMessage}`];
  const cause = failure.apiCause;
  if (cause?.field !== undefined || cause?.reason !== undefined) {
    const value = cause.value === undefined ? '' : ` (value: ${typeof cause.value === 'string' ? cause.value : JSON.stringify(cause.value)})`;
    lines.push(`  cause: ${[cause.field, cause.reason].filter((part) => part !== undefined && part !== '').join(': ')}${value}`);
  } else if (cause?.message !== undefined) {
    lines.push(`  cause: ${cause.code !== undefined ? `${cause.code}: ` : ''}${cause.message}`);
  }
  if (failure.requestId) lines.push(`  request id: ${failure.requestId}`);
  return `${lines.join('\n')}\n`;
}

export function renderFailure(failure: EdgeFailure): string {
  return `error: ${failure.message}\n${failure.details.map((line) => `  ${line}\n`).join('')}`;
}
