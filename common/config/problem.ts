// The one shape every config check reports: what is wrong, where (key path and line), and which rule says so.

export type Severity = 'error' | 'warning';

export interface ConfigProblem {
  readonly severity: Severity;
  /** Key path such as `web[0].bindPoints[0].address`; empty for the document itself. */
  readonly path: string;
  /** 1-based line in the source file, when the path (or its nearest present ancestor) is found there. */
  readonly line?: number;
  /** Short kebab-case name of the broken rule: `required`, `min`, `unknown-key`, `election-above-heartbeat`, … */
  readonly rule: string;
  readonly message: string;
  /** The offending value, when there is one. */
  readonly value?: unknown;
}

export function hasErrors(problems: readonly ConfigProblem[]): boolean {
  return problems.some((problem) => problem.severity === 'error');
}

/** By line (a problem with no line, such as an unreadable file, first), then key path, then the order found. */
export function inFileOrder(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return problems
    .map((problem, order) => ({ problem, order }))
    .sort((a, b) => (a.problem.line ?? 0) - (b.problem.line ?? 0) || compareText(a.problem.path, b.problem.path) || a.order - b.order)
    .map(({ problem }) => problem);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
