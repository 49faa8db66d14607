// The body of the daemon's `GET /api/v1/status`: what it holds firing (with Alertmanager's labels and annotations,
// runbook link included), each controller's commit lag, and each controller's last health poll. Pure: the evaluator's
// state and the settings in, plain JSON out. The status page reads it instead of recomputing the alerts.

import type { AlertsConfig } from '../config/alerts-config.ts';
import { alertAnnotations, alertLabels } from '../core/delivery/alert-payload.ts';
import type { CommitLag } from '../core/evaluator/commit-lag.ts';
import type { EvaluatorState, FiringAlert } from '../core/evaluator/evaluator-state.ts';

export interface DaemonStatusAlert {
  readonly alertname: string;
  readonly severity: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: { readonly summary: string; readonly description: string; readonly runbook_url: string };
  /** ISO 8601, UTC. */
  readonly startsAt: string;
  readonly value?: number;
}

export interface DaemonStatusLag {
  readonly controller: string;
  /** Null while the controller has written no entity change event. */
  readonly entries: number | null;
  readonly seconds: number;
}

export interface DaemonStatusController {
  readonly id: string;
  /** Null before the first health poll (or without a healthUrl). */
  readonly reachable: boolean | null;
  readonly raftHealthOk: boolean | null;
  /** The last answer's HTTP status, or "unreachable". */
  readonly healthStatus: number | 'unreachable' | null;
  readonly checkedAt: string | null;
}

export interface DaemonStatus {
  readonly cluster: string;
  readonly generatedAt: string;
  readonly alerts: readonly DaemonStatusAlert[];
  readonly commitLag: readonly DaemonStatusLag[];
  readonly controllers: readonly DaemonStatusController[];
}

const severityOrder = (severity: string) => (severity === 'critical' ? 0 : 1);

export function daemonStatus(
  config: Pick<AlertsConfig, 'cluster' | 'runbookBaseUrl' | 'controllers'>,
  firing: readonly FiringAlert[],
  commitLag: Readonly<Record<string, CommitLag>>,
  health: EvaluatorState['health'],
  now: number,
): DaemonStatus {
  const payload = { cluster: config.cluster, runbookBaseUrl: config.runbookBaseUrl };
  const alerts = firing.map((instance): DaemonStatusAlert => {
    const change = { alert: instance.alert, labels: instance.labels, startsAt: instance.startsAt, detail: instance.detail, ...(instance.value === undefined ? {} : { value: instance.value }) };
    const labels = alertLabels(change, payload);
    const annotations = alertAnnotations(change, payload);
    return {
      alertname: instance.alert,
      severity: labels.severity!,
      labels,
      annotations: { summary: annotations.summary!, description: annotations.description!, runbook_url: annotations.runbook_url! },
      startsAt: new Date(instance.startsAt).toISOString(),
      ...(instance.value === undefined || !Number.isFinite(instance.value) ? {} : { value: instance.value }),
    };
  });
  // Pages first, then the oldest first.
  alerts.sort((a, b) => severityOrder(a.severity) - severityOrder(b.severity) || a.startsAt.localeCompare(b.startsAt) || a.alertname.localeCompare(b.alertname));
  return {
    cluster: config.cluster,
    generatedAt: new Date(now).toISOString(),
    alerts,
    commitLag: Object.entries(commitLag).map(([controller, lag]) => ({ controller, entries: lag.entries ?? null, seconds: lag.seconds })),
    controllers: config.controllers.map((controller): DaemonStatusController => {
      const last = health[controller.id];
      return {
        id: controller.id,
        reachable: last === undefined ? null : last.status === 200 || last.status === 429,
        raftHealthOk: last === undefined ? null : last.status === 200,
        healthStatus: last === undefined ? null : last.status,
        checkedAt: last === undefined ? null : new Date(last.at).toISOString(),
      };
    }),
  };
}
