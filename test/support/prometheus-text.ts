// Reads Prometheus text exposition (format 0.0.4) the way a scraper does, for tests that check what a /metrics
// serves: families with their TYPE and HELP, and every sample with its labels. The parsing is the product's one
// parser (alerts/core/metrics/prometheus-text.ts), stricter here: a line it cannot read fails the test. Also checks
// a text against a metric contract (common/telemetry/metric-names.ts).
import { parsePrometheusText } from '../../alerts/core/metrics/prometheus-text.ts';
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

export function parseExposition(text: string): Map<string, Family> {
  const parsed = parsePrometheusText(text);
  if (parsed.errors.length > 0) {
    const lines = text.split('\n');
    throw new Error(parsed.errors.map((error) => `line ${error.line}: ${error.message}: ${lines[error.line - 1]}`).join('\n'));
  }
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, samples: [] }));
    return found;
  };
  for (const [name, type] of parsed.types) family(name).type = type;
  for (const [name, help] of parsed.help) family(name).help = help;
  for (const { name, labels, value } of parsed.samples) {
    // A histogram's _bucket, _sum and _count samples belong to its family.
    const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
    const owner = histogram && families.get(histogram[1]!)?.type === 'histogram' ? histogram[1]! : name;
    family(owner).samples.push({ name, labels, value });
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
