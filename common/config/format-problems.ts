// Problems as compiler-style lines, so editors and terminals can jump to them:
// `<file>:<line>: error: <path>: <message> (rule: <rule>)`.

import type { ConfigProblem } from './problem.ts';

export function formatProblem(problem: ConfigProblem, file: string): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}`;
  const path = problem.path === '' ? '' : `${problem.path}: `;
  return `${where}: ${problem.severity}: ${path}${problem.message} (rule: ${problem.rule})`;
}

/** One line per problem, joined with newlines (no trailing newline). */
export function formatProblems(problems: readonly ConfigProblem[], file: string): string {
  return problems.map((problem) => formatProblem(problem, file)).join('\n');
}
