// Pure helpers for the raft benchmark's report: percentiles and a marked section of RESULTS.md that other
// benchmarks leave alone.

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const marker = (name: string, edge: 'start' | 'end') => `<!-- ${name}-bench:${edge} -->`;

/** Replaces (or appends) the section between this benchmark's markers, keeping everything else. */
export function replaceSection(document: string, name: string, heading: string, body: string): string {
  const start = marker(name, 'start');
  const end = marker(name, 'end');
  const section = `${start}\n${heading}\n\n${body}\n${end}`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from >= 0 && to > from) return document.slice(0, from) + section + document.slice(to + end.length);
  return `${document.trimEnd()}\n\n${section}\n`;
}

/** The marked sections of a document (`<!-- name:start -->` … `<!-- name:end -->`: each benchmark's, and notes written
 * by hand beside them), to carry over when another benchmark rewrites it. */
export function markedSections(document: string): string[] {
  const sections: string[] = [];
  const pattern = /<!-- ([a-z-]+):start -->[\s\S]*?<!-- \1:end -->/g;
  for (const match of document.matchAll(pattern)) sections.push(match[0]);
  return sections;
}
