// An alert change as Alertmanager's v2 API takes it: labels `alertname`, `severity` (critical pages, warning
// warns), `cluster`, `controller` (and `peer_id` or `channel_id` where the alert is about one peer), annotations
// `summary` (the catalogue's static text), `description` (this instance) and `runbook_url`.

import { alertDefinition, runbookUrl } from '../../catalogue/alert-catalogue.ts';
import type { AlertInstance } from '../evaluator/alert-change.ts';

export interface PayloadSettings {
  readonly cluster: string;
  readonly runbookBaseUrl: string;
}

export function alertLabels(instance: AlertInstance, settings: PayloadSettings): Record<string, string> {
  const definition = alertDefinition(instance.alert);
  return { alertname: instance.alert, severity: definition.severity, cluster: settings.cluster, ...instance.labels };
}

export function alertAnnotations(instance: AlertInstance, settings: PayloadSettings): Record<string, string> {
  const definition = alertDefinition(instance.alert);
  return {
    summary: definition.summary,
    description: `Cluster ${settings.cluster}: ${instance.detail} ${definition.description}`,
    runbook_url: runbookUrl(instance.alert, settings.runbookBaseUrl),
  };
}
