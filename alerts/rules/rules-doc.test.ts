// docs/alerting-rules.md shows every alert rule (severity, for, expression) and every recording rule as generated:
// a changed rule without its documentation fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { alertRules } from './alert-rules.ts';
import { recordingRules } from './recording-rules.ts';

const doc = readFileSync(new URL('../../docs/alerting-rules.md', import.meta.url), 'utf8');

/** An expression on one line, as a markdown table cell holds it. */
function oneLine(expr: string): string {
  return expr.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').replace(/\|/g, '\\|');
}

test('the alert table of docs/alerting-rules.md matches the generated alert rules', () => {
  for (const { rule, definition } of alertRules()) {
    const row = `| \`${rule.name}\` | ${definition.severity} | ${rule.for} | \`${oneLine(rule.expr)}\` |`;
    assert.ok(doc.includes(row), `docs/alerting-rules.md lacks the row:\n${row}`);
  }
});

test('the recording rule table of docs/alerting-rules.md lists every recording rule', () => {
  for (const rule of recordingRules) {
    const row = `| \`${rule.record}\` | ${rule.meaning} |`;
    assert.ok(doc.includes(row), `docs/alerting-rules.md lacks the row:\n${row}`);
  }
});
