// docs/dashboards.md describes every dashboard in a section of its own, naming each of its panels there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { edgewardDashboards } from './edgeward-dashboards.ts';

const doc = readFileSync(new URL('../../docs/dashboards.md', import.meta.url), 'utf8');

function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/dashboards.md has no section "## ${heading}"`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

test('docs/dashboards.md names every dashboard, its uid and each of its panels', () => {
  for (const dashboard of edgewardDashboards({ runbookBase: 'docs/runbooks.md' })) {
    assert.ok(doc.includes(`\`${dashboard.uid}\``), dashboard.uid!);
    const text = section(dashboard.title!.replace(/^edgeward \/ /, ''));
    for (const panel of dashboard.panels ?? []) assert.ok(text.includes(panel.title ?? ''), `${dashboard.title}: "${panel.title}" is not in its section`);
  }
});
