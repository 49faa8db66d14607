// The labels and annotations of a generated alert, written once for two readers: the rule (Prometheus template
// actions for the labels and `$value`) and its promtool test (the text Prometheus must produce for one alert).
import { clusterScopeController, runbookUrl, type AlertDefinition } from '../catalogue/alert-catalogue.ts';
import { scrapeNames } from '../prometheus/scrape-names.ts';
import type { AlertRule, ExpectedAlert, TemplateText } from './rule-model.ts';

/** The labels a rule adds to what its expression yields: the severity, and `controller="all"` for the cluster. */
export function ruleLabels(definition: AlertDefinition): Record<string, string> {
  return definition.scope === 'cluster'
    ? { severity: definition.severity, [scrapeNames.labels.controller]: clusterScopeController }
    : { severity: definition.severity };
}

function valueAction(rule: AlertRule): string {
  return rule.valueFormat === undefined || rule.valueFormat === 'plain' ? '{{ $value }}' : `{{ $value | ${rule.valueFormat} }}`;
}

const templateText = (rule: AlertRule): TemplateText => ({
  label: (name) => `{{ $labels.${name} }}`,
  value: valueAction(rule),
});

function annotations(rule: AlertRule, definition: AlertDefinition, text: TemplateText, runbookBase: string | undefined): Record<string, string> {
  return {
    summary: definition.summary,
    description: `${rule.detail(text)} ${definition.description}`,
    runbook_url: runbookUrl(definition.name, runbookBase),
  };
}

/** The annotations of the rule, as Prometheus templates. */
export function ruleAnnotations(rule: AlertRule, definition: AlertDefinition, runbookBase?: string): Record<string, string> {
  return annotations(rule, definition, templateText(rule), runbookBase);
}

/** Does the rule's description print `$value`? */
export function describesValue(rule: AlertRule): boolean {
  return rule.detail(templateText(rule)).includes('$value');
}

/** The exact labels and annotations Prometheus gives one expected alert of the rule. */
export function expectedAlertText(
  rule: AlertRule,
  definition: AlertDefinition,
  expected: ExpectedAlert,
  runbookBase?: string,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels = { ...expected.labels, ...ruleLabels(definition) };
  if (describesValue(rule) && expected.value === undefined) throw new Error(`a test of ${rule.name} expects an alert without saying the value its description prints`);
  const text: TemplateText = {
    label: (name) => {
      const value = labels[name];
      if (value === undefined) throw new Error(`${rule.name}'s description prints the label ${name}, which a test's expected alert does not have`);
      return value;
    },
    value: expected.value ?? '',
  };
  return { labels: sortedRecord(labels), annotations: annotations(rule, definition, text, runbookBase) };
}

export function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
