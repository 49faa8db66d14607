// Alertmanager's routing for edgeward (Alertmanager 0.25): pages (severity critical) to the pager receiver fast,
// warnings to their own receiver at a calmer pace, both grouped per cluster and alert; resolutions are sent; and
// while a cluster has no leader, has lost quorum or has no healthy controller, the warnings that follow from it
// (peer flapping and latency, leadership churn, refused writes) are held back for that cluster.
import type { AlertName } from '../catalogue/alert-catalogue.ts';
import { scrapeNames } from '../prometheus/scrape-names.ts';
import { goYamlText } from '../yaml/go-yaml-text.ts';

export const receiverNames = { pager: 'edgeward-pager', warnings: 'edgeward-warnings' } as const;

/** The demo's local pager receiver (`./edgeward alerts pager`), which takes both kinds on separate paths. */
export const defaultPagerUrl = 'http://127.0.0.1:9096/pager';
export const defaultWarningUrl = 'http://127.0.0.1:9096/warnings';

export interface RouteTiming {
  /** How long a new group waits for more alerts before its first notification. */
  readonly groupWait: string;
  /** How long a notified group waits before telling of alerts added to it, or resolved in it. */
  readonly groupInterval: string;
  /** How long before a notification is sent again for alerts still firing. */
  readonly repeatInterval: string;
}

/** Pages reach the pager within seconds (group_wait) and remind hourly; resolutions follow within a minute. */
export const defaultPageTiming: RouteTiming = { groupWait: '5s', groupInterval: '1m', repeatInterval: '1h' };
/** Warnings wait to gather related ones, and remind twice a day. */
export const defaultWarningTiming: RouteTiming = { groupWait: '30s', groupInterval: '5m', repeatInterval: '12h' };

export const groupBy = [scrapeNames.labels.cluster, 'alertname'] as const;

/** The alerts that mean the cluster has no working leader... */
export const inhibitingAlerts: readonly AlertName[] = ['EdgewardClusterLeaderless', 'EdgewardQuorumLost', 'EdgewardNoControllerHealthy'];
/** ...and the warnings they explain, held back in the same cluster while one of them fires. */
export const inhibitedAlerts: readonly AlertName[] = ['EdgewardPeerFlapping', 'EdgewardPeerLatencyJump', 'EdgewardLeadershipChurn', 'EdgewardWritesRefusedNoLeader'];

export type PagerReceiver =
  | { readonly kind: 'webhook'; readonly url: string }
  /** PagerDuty Events API v2; the integration's routing key is read from a file Alertmanager can read. */
  | { readonly kind: 'pagerduty'; readonly routingKeyFile: string }
  /** Opsgenie; the API key of an Alertmanager integration is read from a file Alertmanager can read. */
  | { readonly kind: 'opsgenie'; readonly apiKeyFile: string };

export interface AlertmanagerConfigOptions {
  readonly pager?: PagerReceiver;
  readonly warningUrl?: string;
  readonly pageTiming?: RouteTiming;
  readonly warningTiming?: RouteTiming;
}

const durationPattern = /^(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$/;

function isWebhookUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Every problem with the options; empty when they can be written. */
export function alertmanagerConfigProblems(options: AlertmanagerConfigOptions): string[] {
  const problems: string[] = [];
  const pager = options.pager ?? { kind: 'webhook', url: defaultPagerUrl };
  if (pager.kind === 'webhook' && !isWebhookUrl(pager.url)) problems.push(`pager URL "${pager.url}" is not an http or https URL`);
  if (pager.kind === 'pagerduty' && pager.routingKeyFile.trim() === '') problems.push('the PagerDuty receiver needs the file holding its routing key');
  if (pager.kind === 'opsgenie' && pager.apiKeyFile.trim() === '') problems.push('the Opsgenie receiver needs the file holding its API key');
  const warningUrl = options.warningUrl ?? defaultWarningUrl;
  if (!isWebhookUrl(warningUrl)) problems.push(`warning URL "${warningUrl}" is not an http or https URL`);
  for (const [name, timing] of [
    ['page', options.pageTiming],
    ['warning', options.warningTiming],
  ] as const) {
    if (!timing) continue;
    for (const [key, value] of Object.entries(timing)) {
      if (value === '' || !durationPattern.test(value) || /^0+(ms|[smhdwy])?$/.test(value)) problems.push(`${name} ${key} "${value}" is not a positive duration such as 30s`);
    }
  }
  return problems;
}

function timingKeys(timing: RouteTiming): Record<string, string> {
  return { group_wait: timing.groupWait, group_interval: timing.groupInterval, repeat_interval: timing.repeatInterval };
}

function pagerReceiver(pager: PagerReceiver): Record<string, unknown> {
  switch (pager.kind) {
    case 'webhook':
      return { name: receiverNames.pager, webhook_configs: [{ url: pager.url, send_resolved: true }] };
    case 'pagerduty':
      return {
        name: receiverNames.pager,
        pagerduty_configs: [
          {
            routing_key_file: pager.routingKeyFile,
            send_resolved: true,
            severity: 'critical',
            description: '{{ .GroupLabels.alertname }} in cluster {{ .GroupLabels.cluster }}: {{ .CommonAnnotations.summary }}',
            details: {
              firing: '{{ range .Alerts.Firing }}{{ .Annotations.description }} {{ end }}',
              runbook: '{{ .CommonAnnotations.runbook_url }}',
            },
          },
        ],
      };
    case 'opsgenie':
      return {
        name: receiverNames.pager,
        opsgenie_configs: [
          {
            api_key_file: pager.apiKeyFile,
            send_resolved: true,
            priority: 'P1',
            message: '{{ .GroupLabels.alertname }} in cluster {{ .GroupLabels.cluster }}',
            description: '{{ range .Alerts.Firing }}{{ .Annotations.description }}\n{{ end }}Runbook: {{ .CommonAnnotations.runbook_url }}',
            tags: 'edgeward,{{ .GroupLabels.cluster }}',
          },
        ],
      };
  }
}

const anyOf = (names: readonly string[]) => `alertname=~"${names.join('|')}"`;

/** alertmanager.yml text; throws with every problem when the options are not valid. */
export function alertmanagerConfig(options: AlertmanagerConfigOptions = {}): string {
  const problems = alertmanagerConfigProblems(options);
  if (problems.length > 0) throw new Error(`invalid Alertmanager configuration options:\n  ${problems.join('\n  ')}`);
  const pageTiming = options.pageTiming ?? defaultPageTiming;
  const warningTiming = options.warningTiming ?? defaultWarningTiming;
  const config = {
    route: {
      // Anything without a known severity is treated as a warning rather than dropped.
      receiver: receiverNames.warnings,
      group_by: [...groupBy],
      ...timingKeys(warningTiming),
      routes: [
        { matchers: ['severity="critical"'], receiver: receiverNames.pager, ...timingKeys(pageTiming) },
        { matchers: ['severity="warning"'], receiver: receiverNames.warnings, ...timingKeys(warningTiming) },
      ],
    },
    inhibit_rules: [
      {
        source_matchers: [anyOf(inhibitingAlerts)],
        target_matchers: [anyOf(inhibitedAlerts)],
        equal: [scrapeNames.labels.cluster],
      },
    ],
    receivers: [
      pagerReceiver(options.pager ?? { kind: 'webhook', url: defaultPagerUrl }),
      { name: receiverNames.warnings, webhook_configs: [{ url: options.warningUrl ?? defaultWarningUrl, send_resolved: true }] },
    ],
  };
  return goYamlText(config, [
    'edgeward: Alertmanager routing (Alertmanager 0.25).',
    'Generated by `./edgeward gen alertmanager <dir>` from alerts/alertmanager/alertmanager-config.ts: do not edit; generate again with other options.',
  ]);
}
