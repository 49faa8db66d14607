// From a line the scanner found (it holds one of the needles) to the rules it matches: the line is parsed as the
// controller's JSON log object and each candidate rule's conditions are checked. A line that is not a JSON object
// is malformed: counted and skipped. Pure.

import type { LineCondition, LogRule } from '../rules/alert-rules.ts';
import type { LineMatch } from './line-scanner.ts';

export interface LogNeedleTable {
  /** Distinct needles, in the order the scanner is given them. */
  readonly needles: readonly string[];
  /** Per needle: the rule conditions that use it. */
  readonly conditions: readonly (readonly { readonly rule: LogRule; readonly condition: LineCondition }[])[];
}

export function logNeedleTable(rules: readonly LogRule[]): LogNeedleTable {
  const needles: string[] = [];
  const conditions: { rule: LogRule; condition: LineCondition }[][] = [];
  for (const rule of rules) {
    for (const condition of rule.conditions) {
      let index = needles.indexOf(condition.needle);
      if (index === -1) {
        index = needles.push(condition.needle) - 1;
        conditions.push([]);
      }
      conditions[index]!.push({ rule, condition });
    }
  }
  return { needles, conditions };
}

/** What the evaluator needs of a log line. */
export interface LogRecord {
  /** The line's `time`, in ms since the epoch; absent when missing or not a date. */
  readonly at?: number;
  /** `peerId`, on the peer lines. */
  readonly peerId?: string;
  /** `msg`, cut to 200 characters. */
  readonly msg?: string;
}

export type LogLineOutcome =
  | { readonly kind: 'matched'; readonly rules: readonly LogRule[]; readonly record: LogRecord }
  | { readonly kind: 'no-rule' }
  | { readonly kind: 'malformed'; readonly reason: string };

export function matchLogLine(line: LineMatch, table: LogNeedleTable): LogLineOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.text);
  } catch {
    return { kind: 'malformed', reason: 'not-json' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'malformed', reason: 'not-object' };
  const fields = parsed as Record<string, unknown>;
  const msg = typeof fields.msg === 'string' ? fields.msg : undefined;

  const rules: LogRule[] = [];
  for (const needle of line.needles) {
    for (const { rule, condition } of table.conditions[needle] ?? []) {
      if (rules.includes(rule)) continue;
      if (condition.msgIncludes !== undefined && !(msg?.includes(condition.msgIncludes) ?? false)) continue;
      if (condition.fieldEquals && !Object.entries(condition.fieldEquals).every(([key, value]) => fields[key] === value)) continue;
      rules.push(rule);
    }
  }
  if (rules.length === 0) return { kind: 'no-rule' };
  const at = typeof fields.time === 'string' ? Date.parse(fields.time) : Number.NaN;
  return {
    kind: 'matched',
    rules,
    record: {
      ...(Number.isFinite(at) ? { at } : {}),
      ...(typeof fields.peerId === 'string' ? { peerId: fields.peerId } : {}),
      ...(msg === undefined ? {} : { msg: msg.length > 200 ? `${msg.slice(0, 200)}…` : msg }),
    },
  };
}
