// Alertmanager's webhook notification (payload version 4), checked field by field, and the log lines the pager
// receiver writes for it: one JSON line per alert, so a test or an operator can grep and jq what was paged.

export type AlertStatus = 'firing' | 'resolved';

export interface WebhookAlert {
  readonly status: AlertStatus;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly fingerprint: string;
}

export interface WebhookNotification {
  readonly version: '4';
  readonly status: AlertStatus;
  readonly receiver: string;
  readonly groupLabels: Readonly<Record<string, string>>;
  readonly commonLabels: Readonly<Record<string, string>>;
  readonly alerts: readonly WebhookAlert[];
}

export type ParseResult = { readonly ok: true; readonly notification: WebhookNotification } | { readonly ok: false; readonly reason: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStatus(value: unknown): value is AlertStatus {
  return value === 'firing' || value === 'resolved';
}

function stringMapProblem(value: unknown, path: string): string | undefined {
  if (!isObject(value)) return `${path} must be an object of strings`;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return `${path}.${key} must be a string`;
  }
  return undefined;
}

function alertProblem(value: unknown, path: string): string | undefined {
  if (!isObject(value)) return `${path} must be an object`;
  if (!isStatus(value['status'])) return `${path}.status must be "firing" or "resolved"`;
  for (const key of ['labels', 'annotations'] as const) {
    const problem = stringMapProblem(value[key], `${path}.${key}`);
    if (problem) return problem;
  }
  for (const key of ['startsAt', 'endsAt', 'fingerprint'] as const) {
    if (typeof value[key] !== 'string') return `${path}.${key} must be a string`;
  }
  return undefined;
}

/** A parsed JSON body as a version 4 notification, or the first thing wrong with it. */
export function parseNotification(value: unknown): ParseResult {
  if (!isObject(value)) return { ok: false, reason: 'the body must be a JSON object' };
  if (value['version'] !== '4') return { ok: false, reason: 'version must be "4" (Alertmanager\'s webhook payload)' };
  if (!isStatus(value['status'])) return { ok: false, reason: 'status must be "firing" or "resolved"' };
  if (typeof value['receiver'] !== 'string' || value['receiver'] === '') return { ok: false, reason: 'receiver must be a non-empty string' };
  for (const key of ['groupLabels', 'commonLabels'] as const) {
    const problem = stringMapProblem(value[key], key);
    if (problem) return { ok: false, reason: problem };
  }
  const alerts = value['alerts'];
  if (!Array.isArray(alerts)) return { ok: false, reason: 'alerts must be an array' };
  for (const [index, alert] of alerts.entries()) {
    const problem = alertProblem(alert, `alerts[${index}]`);
    if (problem) return { ok: false, reason: problem };
  }
  return { ok: true, notification: value as unknown as WebhookNotification };
}

/** One JSON line (with its newline) per alert of the notification. */
export function pagerLogLines(notification: WebhookNotification, receivedAt: Date): string {
  return notification.alerts
    .map((alert) =>
      JSON.stringify({
        receivedAt: receivedAt.toISOString(),
        receiver: notification.receiver,
        status: alert.status,
        alertname: alert.labels['alertname'] ?? null,
        severity: alert.labels['severity'] ?? null,
        cluster: alert.labels['cluster'] ?? null,
        controller: alert.labels['controller'] ?? null,
        labels: alert.labels,
        annotations: alert.annotations,
        startsAt: alert.startsAt,
        endsAt: alert.endsAt,
        fingerprint: alert.fingerprint,
      }) + '\n',
    )
    .join('');
}
