// Reads a running Prometheus and Alertmanager through their HTTP APIs, as an operator's tooling does: Prometheus'
// targets, rule groups and alerts (/api/v1), Alertmanager's alerts and status (/api/v2).

export interface PrometheusTarget {
  readonly labels: Record<string, string>;
  readonly scrapePool: string;
  readonly health: 'up' | 'down' | 'unknown';
  readonly lastError: string;
}

export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly activeAt: string;
}

export interface RuleGroup {
  readonly name: string;
  readonly file: string;
  readonly rules: readonly { readonly name: string; readonly type: 'alerting' | 'recording'; readonly health: string; readonly lastError?: string }[];
}

export interface AlertmanagerAlert {
  readonly labels: Record<string, string>;
  readonly startsAt: string;
  readonly updatedAt: string;
  readonly endsAt: string;
  readonly fingerprint: string;
  readonly status: { readonly state: 'active' | 'suppressed' | 'unprocessed'; readonly inhibitedBy: string[] };
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export async function prometheusTargets(prometheus: string): Promise<PrometheusTarget[]> {
  return (await getJson<{ data: { activeTargets: PrometheusTarget[] } }>(`${prometheus}/api/v1/targets?state=active`)).data.activeTargets;
}

export async function prometheusRuleGroups(prometheus: string): Promise<RuleGroup[]> {
  return (await getJson<{ data: { groups: RuleGroup[] } }>(`${prometheus}/api/v1/rules`)).data.groups;
}

/** Alerts pending or firing in Prometheus. */
export async function prometheusAlerts(prometheus: string): Promise<PrometheusAlert[]> {
  return (await getJson<{ data: { alerts: PrometheusAlert[] } }>(`${prometheus}/api/v1/alerts`)).data.alerts;
}

/** Alerts Alertmanager holds (active, suppressed; resolved ones drop out). */
export async function alertmanagerAlerts(alertmanager: string): Promise<AlertmanagerAlert[]> {
  return getJson<AlertmanagerAlert[]>(`${alertmanager}/api/v2/alerts`);
}

/** The configuration Alertmanager runs with, as it loaded it. */
export async function alertmanagerConfigLoaded(alertmanager: string): Promise<string> {
  return (await getJson<{ config: { original: string } }>(`${alertmanager}/api/v2/status`)).config.original;
}
