// Reads Prometheus text exposition (format 0.0.4) the way a scraper does, for tests that check what a /metrics
// serves: families with their TYPE and HELP, and every sample with its labels. Also checks a text against a
// metric contract (common/telemetry/metric-names.ts).
import type { MetricContract } from '../../common/telemetry/metric-names.ts';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  type?: string;
  help?: string;
  readonly samples: Sample[];
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const label = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, samples: [] }));
    return found;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') family(meta[2]!).type = meta[3];
      else family(meta[2]!).help = meta[3];
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? '';
    label.lastIndex = 0;
    while (label.lastIndex < body.length) {
      const start = label.lastIndex;
      const pair = label.exec(body);
      if (!pair) throw new Error(`bad labels at ${start} in: ${line}`);
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const name = match[1]!;
    const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
    const owner = histogram && families.get(histogram[1]!)?.type === 'histogram' ? histogram[1]! : name;
    family(owner).samples.push({ name, labels, value: Number(match[3]) });
  }
  return families;
}

/** Every way `text` differs from `contract`: a missing family, another TYPE, no HELP, no sample, a sample without a label. */
export function contractProblems(families: ReadonlyMap<string, Family>, contract: Readonly<Record<string, MetricContract>>): string[] {
  const problems: string[] = [];
  for (const [name, expected] of Object.entries(contract)) {
    const found = families.get(name);
    if (!found) {
      problems.push(`${name}: missing`);
      continue;
    }
    if (found.type !== expected.type) problems.push(`${name}: TYPE ${found.type ?? '(none)'}, expected ${expected.type}`);
    if (!found.help || found.help === 'description missing') problems.push(`${name}: no HELP text`);
    if (found.samples.length === 0) problems.push(`${name}: no samples`);
    for (const sample of found.samples) {
      const missing = expected.labels.filter((key) => !(key in sample.labels));
      if (missing.length > 0) problems.push(`${name}: sample ${sample.name}${JSON.stringify(sample.labels)} lacks ${missing.join(', ')}`);
    }
  }
  return problems;
}
