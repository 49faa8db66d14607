// A parser for the Prometheus text exposition format (version 0.0.4), as the controllers' /metrics serves it:
// `# HELP` and `# TYPE` lines, samples with optional labels (values escaped with \\, \" and \n), float values
// including NaN and ±Inf, and an optional timestamp. A malformed line is reported and skipped; the rest is kept.
// Pure: text in, samples out.

export type MetricKind = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  /** Milliseconds since the epoch, when the line carries one. */
  readonly timestamp?: number;
}

export interface ParsedExposition {
  readonly samples: readonly Sample[];
  /** Family name → its `# TYPE`. */
  readonly types: ReadonlyMap<string, MetricKind>;
  readonly help: ReadonlyMap<string, string>;
  /** 1-based line and what is wrong with it. */
  readonly errors: readonly { readonly line: number; readonly message: string }[];
}

const kinds: readonly MetricKind[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const metricNameStart = /[a-zA-Z_:]/;
const metricNameChar = /[a-zA-Z0-9_:]/;
const labelNameStart = /[a-zA-Z_]/;
const labelNameChar = /[a-zA-Z0-9_]/;

export function parsePrometheusText(text: string): ParsedExposition {
  const samples: Sample[] = [];
  const types = new Map<string, MetricKind>();
  const help = new Map<string, string>();
  const errors: { line: number; message: string }[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    if (line.trimStart().startsWith('#')) {
      const comment = parseComment(line.trimStart());
      if (comment?.kind === 'type') {
        if (!kinds.includes(comment.value as MetricKind)) errors.push({ line: index + 1, message: `unknown metric type "${comment.value}"` });
        else types.set(comment.name, comment.value as MetricKind);
      } else if (comment?.kind === 'help') {
        help.set(comment.name, unescapeHelp(comment.value));
      }
      return;
    }
    const sample = parseSampleLine(line);
    if (typeof sample === 'string') errors.push({ line: index + 1, message: sample });
    else samples.push(sample);
  });
  return { samples, types, help, errors };
}

function parseComment(line: string): { kind: 'type' | 'help'; name: string; value: string } | undefined {
  const match = /^#\s+(TYPE|HELP)\s+(\S+)(?:\s+(.*))?$/.exec(line);
  if (!match) return undefined;
  return { kind: match[1] === 'TYPE' ? 'type' : 'help', name: match[2]!, value: (match[3] ?? '').trim() };
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_all, code: string) => (code === 'n' ? '\n' : '\\'));
}

/** A sample, or a message saying why the line is not one. */
export function parseSampleLine(line: string): Sample | string {
  let at = 0;
  const skipSpace = () => {
    while (at < line.length && (line[at] === ' ' || line[at] === '\t')) at++;
  };
  skipSpace();
  const nameStart = at;
  if (!metricNameStart.test(line[at] ?? '')) return 'expected a metric name';
  while (at < line.length && metricNameChar.test(line[at]!)) at++;
  const name = line.slice(nameStart, at);
  const labels: Record<string, string> = {};
  skipSpace();
  if (line[at] === '{') {
    at++;
    for (;;) {
      skipSpace();
      if (line[at] === '}') {
        at++;
        break;
      }
      const labelStart = at;
      if (!labelNameStart.test(line[at] ?? '')) return `expected a label name in ${name}`;
      while (at < line.length && labelNameChar.test(line[at]!)) at++;
      const labelName = line.slice(labelStart, at);
      skipSpace();
      if (line[at] !== '=') return `expected "=" after label ${labelName}`;
      at++;
      skipSpace();
      if (line[at] !== '"') return `expected a quoted value for label ${labelName}`;
      at++;
      let value = '';
      for (;;) {
        if (at >= line.length) return `unterminated value for label ${labelName}`;
        const char = line[at]!;
        if (char === '"') {
          at++;
          break;
        }
        if (char === '\\') {
          const next = line[at + 1];
          if (next === 'n') value += '\n';
          else if (next === '\\' || next === '"') value += next;
          else return `bad escape "\\${next ?? ''}" in label ${labelName}`;
          at += 2;
          continue;
        }
        value += char;
        at++;
      }
      if (Object.hasOwn(labels, labelName)) return `label ${labelName} repeated`;
      labels[labelName] = value;
      skipSpace();
      if (line[at] === ',') {
        at++;
        continue;
      }
      if (line[at] === '}') {
        at++;
        break;
      }
      return `expected "," or "}" after label ${labelName}`;
    }
  }
  const rest = line.slice(at).trim().split(/[ \t]+/);
  if (rest.length === 0 || rest[0] === '') return `no value for ${name}`;
  if (rest.length > 2) return `unexpected text after the value of ${name}`;
  const value = parseValue(rest[0]!);
  if (value === undefined) return `"${rest[0]}" is not a number`;
  if (rest.length === 2) {
    if (!/^-?\d+$/.test(rest[1]!)) return `"${rest[1]}" is not a timestamp`;
    return { name, labels, value, timestamp: Number(rest[1]) };
  }
  return { name, labels, value };
}

/** As Go's ParseFloat, which Prometheus reads values with: NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string): number | undefined {
  if (/^nan$/i.test(text)) return Number.NaN;
  const infinity = /^([-+]?)inf(inity)?$/i.exec(text);
  if (infinity) return infinity[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}
