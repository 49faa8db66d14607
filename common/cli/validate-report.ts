// What `controller validate` and `router validate` print: the problems in file order, as compiler-style lines or as
// one JSON object, and the `--strict` reading of them.

import type { ConfigProblem } from '../config/problem.ts';

/** `--strict`: an unknown key is an error wherever the schema would only warn about it. */
export function strictProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return problems.map((problem) => (problem.rule === 'unknown-key' && problem.severity === 'warning' ? { ...problem, severity: 'error' } : problem));
}

/** One problem as JSON: every key always present, `null` where the problem has no line or value. */
export interface JsonProblem {
  readonly severity: ConfigProblem['severity'];
  readonly path: string;
  readonly line: number | null;
  readonly rule: string;
  readonly message: string;
  readonly value: unknown;
}

export interface ValidateSummary {
  readonly valid: boolean;
  readonly errors: number;
  readonly warnings: number;
}

/**
 * The `--json` output: the file as given, its problems in the order given (file order), and a summary; `summary`
 * adds to the summary (the controller's id), `more` adds keys after it (the router's effective configuration).
 */
export function validateJson(file: string, problems: readonly ConfigProblem[], summary: Readonly<Record<string, unknown>> = {}, more: Readonly<Record<string, unknown>> = {}): string {
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  const counts: ValidateSummary = { valid: errors === 0, errors, warnings: problems.length - errors };
  const report = { file, problems: problems.map(jsonProblem), summary: { ...counts, ...summary }, ...more };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Values are shown as the file has them, bounded: a value of a megabyte is not worth printing whole. */
const maxValueChars = 1024;

function jsonProblem(problem: ConfigProblem): JsonProblem {
  return { severity: problem.severity, path: problem.path, line: problem.line ?? null, rule: problem.rule, message: problem.message, value: jsonValue(problem.value) };
}

function jsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'string') return value.length > maxValueChars ? `${value.slice(0, maxValueChars)}… (${value.length} characters)` : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'bigint') return value.toString();
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text !== undefined && text.length <= maxValueChars) return JSON.parse(text) as unknown;
  return Array.isArray(value) ? `a list of ${value.length} items` : typeof value === 'object' ? `a map of ${Object.keys(value).length} keys` : String(value);
}
