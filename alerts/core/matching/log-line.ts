// From a line the scanner found (it holds one of the needles) to the rules it matches: the line is parsed as the
// controller's JSON log object and each candidate rule's conditions are checked strictly (component, msg, fields;
// the needle alone proves nothing, since client text in a field holds it too). A line that is not a JSON object is
// malformed: counted and skipped. Pure.

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
}

export type LogLineOutcome =
  | {
      readonly kind: 'matched';
      readonly rules: readonly LogRule[];
      /** Per rule, the `msg` of the condition the line met: the rule's own text, never the line's, for the
       * description (it quotes only what the daemon owns). */
      readonly lines: readonly string[];
      readonly record: LogRecord;
    }
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

  const rules: LogRule[] = [];
  const lines: string[] = [];
  for (const needle of line.needles) {
    for (const { rule, condition } of table.conditions[needle] ?? []) {
      if (rules.includes(rule) || !meets(fields, condition)) continue;
      rules.push(rule);
      lines.push(condition.msg);
    }
  }
  if (rules.length === 0) return { kind: 'no-rule' };
  const at = typeof fields.time === 'string' ? Date.parse(fields.time) : Number.NaN;
  return {
    kind: 'matched',
    rules,
    lines,
    record: {
      ...(Number.isFinite(at) ? { at } : {}),
      ...(typeof fields.peerId === 'string' ? { peerId: fields.peerId } : {}),
    },
  };
}

/** The parsed line is the one the condition's emitter writes. */
function meets(fields: Readonly<Record<string, unknown>>, condition: LineCondition): boolean {
  if (fields.component !== condition.component || fields.msg !== condition.msg) return false;
  for (const [key, value] of Object.entries(condition.fieldEquals ?? {})) if (fields[key] !== value) return false;
  for (const [key, value] of Object.entries(condition.fieldStartsWith ?? {})) {
    const field = fields[key];
    if (typeof field !== 'string' || !field.startsWith(value)) return false;
  }
  return (condition.stringFields ?? []).every((key) => typeof fields[key] === 'string');
}
