// Every runbook_url an alert can carry (the catalogue's, the generated rules', the alerts Alertmanager's inhibitions
// name) must land on a section of docs/runbooks.md, and every alert section there must be an alert that exists.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { inhibitedAlerts, inhibitingAlerts } from '../alertmanager/alertmanager-config.ts';
import { rulesFileText } from '../rules/rules-files.ts';
import { alertCatalogue, defaultRunbookBase, runbookUrl } from './alert-catalogue.ts';

const runbooks = readFileSync(new URL('../../docs/runbooks.md', import.meta.url), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function githubAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

const headings = runbooks
  .split('\n')
  .filter((line) => /^#{1,6} /.test(line))
  .map((line) => line.replace(/^#+ /, ''));
const anchors = new Set(headings.map(githubAnchor));

/** The text of the section under a level-2 heading. */
function section(heading: string): string {
  const start = runbooks.indexOf(`\n## ${heading}\n`);
  const end = runbooks.indexOf('\n## ', start + 1);
  return runbooks.slice(start, end < 0 ? undefined : end);
}

function anchorOf(url: string): string {
  const [base, anchor] = url.split('#');
  assert.equal(base, defaultRunbookBase, url);
  assert.ok(anchor, `${url} has no anchor`);
  return anchor;
}

test('every runbook_url of the catalogue, the generated rules and the inhibitions lands on a heading of docs/runbooks.md', () => {
  const urls = new Set<string>(alertCatalogue.map((alert) => runbookUrl(alert.name)));
  const rules = parse(rulesFileText()) as { groups: { rules: { alert?: string; annotations?: Record<string, string> }[] }[] };
  for (const rule of rules.groups.flatMap((group) => group.rules)) {
    if (rule.alert) urls.add(rule.annotations!['runbook_url']!);
  }
  for (const name of [...inhibitingAlerts, ...inhibitedAlerts]) urls.add(runbookUrl(name));
  for (const url of urls) assert.ok(anchors.has(anchorOf(url)), `${url} has no section in docs/runbooks.md`);
});

test('each alert has a section titled with its name, with Meaning, Impact, Diagnosis and Mitigation', () => {
  for (const alert of alertCatalogue) {
    assert.ok(headings.includes(alert.name), `no "## ${alert.name}" in docs/runbooks.md`);
    const text = section(alert.name);
    for (const part of ['**Meaning.**', '**Impact.**', '**Diagnosis.**', '**Mitigation.**']) {
      assert.ok(text.includes(part), `${alert.name}'s runbook has no ${part}`);
    }
    assert.match(text, /```(sh|promql)\n/, `${alert.name}'s diagnosis shows the commands or queries to run`);
  }
});

test('there is no runbook section for an alert that does not exist', () => {
  const names = new Set<string>(alertCatalogue.map((alert) => alert.name));
  for (const heading of headings.filter((candidate) => /^Edgeward/.test(candidate))) {
    assert.ok(names.has(heading), `docs/runbooks.md has a section for ${heading}, which is not in the catalogue`);
  }
});

test('the links within docs/runbooks.md land on its headings', () => {
  for (const [, anchor] of runbooks.matchAll(/\]\(#([^)]+)\)/g)) assert.ok(anchors.has(anchor!), `#${anchor} is not a heading`);
});
