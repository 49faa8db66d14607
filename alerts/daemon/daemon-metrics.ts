// The alerts daemon's own /metrics, with prom-client: the names of common/telemetry/metric-names.ts
// (`alertsDaemonMetrics`), plus prom-client's process and Node.js metrics except nodejs_active_* (gauges named
// `_total`, which `promtool check metrics` rejects).

import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { alertsDaemonMetrics } from '../../common/telemetry/metric-names.ts';
import type { AlertsDaemonMetricName } from '../../common/telemetry/metric-names.ts';
import { alertDefinition } from '../catalogue/alert-catalogue.ts';
import type { AlertName } from '../catalogue/alert-catalogue.ts';
import { daemonAlerts } from '../core/rules/alert-rules.ts';

export type FileKind = 'log' | 'events';

const help: Record<AlertsDaemonMetricName, string> = {
  edgeward_alerts_lines_read_total: 'Complete lines read from the followed files',
  edgeward_alerts_rule_matches_total: 'Log lines and events that matched each rule',
  edgeward_alerts_firing: 'Alert instances the daemon holds firing',
  edgeward_alerts_deliveries_total: 'POSTs to Alertmanager, by result (accepted, failed)',
  edgeward_alerts_deliveries_failed_total: 'POSTs to Alertmanager that failed (an error status, a timeout or no connection)',
  edgeward_alerts_delivery_queue: 'Alert instances waiting to be accepted by every Alertmanager',
  edgeward_alerts_commit_lag_entries: 'Raft entries each controller is behind the highest raftIndex any controller wrote',
  edgeward_alerts_commit_lag_seconds: 'Seconds since each controller\'s newest entity change event, while another controller is ahead',
  edgeward_alerts_controller_raft_health_ok: '1 when the controller\'s last /health-checks/controller/raft answered 200',
  edgeward_alerts_controller_reachable: '1 when the controller answered its last health poll with 200 or 429',
  edgeward_alerts_records_skipped_total: 'Lines and events skipped: not JSON, not the expected shape, or longer than files.maxLineBytes',
};

const excludedDefaults = ['nodejs_active_handles', 'nodejs_active_handles_total', 'nodejs_active_requests', 'nodejs_active_requests_total', 'nodejs_active_resources', 'nodejs_active_resources_total'];

export class DaemonMetrics {
  readonly registry = new Registry();
  private readonly linesRead = this.counter('edgeward_alerts_lines_read_total');
  private readonly ruleMatches = this.counter('edgeward_alerts_rule_matches_total');
  private readonly firing = this.gauge('edgeward_alerts_firing');
  private readonly deliveries = this.counter('edgeward_alerts_deliveries_total');
  private readonly deliveriesFailed = this.counter('edgeward_alerts_deliveries_failed_total');
  private readonly queue = this.gauge('edgeward_alerts_delivery_queue');
  private readonly lagEntries = this.gauge('edgeward_alerts_commit_lag_entries');
  private readonly lagSeconds = this.gauge('edgeward_alerts_commit_lag_seconds');
  private readonly healthOk = this.gauge('edgeward_alerts_controller_raft_health_ok');
  private readonly reachable = this.gauge('edgeward_alerts_controller_reachable');
  private readonly skipped = this.counter('edgeward_alerts_records_skipped_total');

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of excludedDefaults) this.registry.removeSingleMetric(name);
    }
    for (const alert of daemonAlerts) this.firing.set({ alertname: alert, severity: alertDefinition(alert).severity }, 0);
    this.queue.set(0);
    this.deliveriesFailed.inc(0);
    for (const result of ['accepted', 'failed']) this.deliveries.inc({ result }, 0);
    for (const kind of ['log', 'events']) this.linesRead.inc({ file_kind: kind }, 0);
  }

  lines(kind: FileKind, count: number): void {
    if (count > 0) this.linesRead.inc({ file_kind: kind }, count);
  }

  matched(rule: string, count = 1): void {
    if (count > 0) this.ruleMatches.inc({ rule }, count);
  }

  skippedRecords(kind: FileKind, reason: string, count = 1): void {
    if (count > 0) this.skipped.inc({ file_kind: kind, reason }, count);
  }

  setFiring(counts: ReadonlyMap<AlertName, number>): void {
    for (const alert of daemonAlerts) this.firing.set({ alertname: alert, severity: alertDefinition(alert).severity }, counts.get(alert) ?? 0);
  }

  delivery(result: 'accepted' | 'failed'): void {
    this.deliveries.inc({ result });
    if (result === 'failed') this.deliveriesFailed.inc();
  }

  setQueue(size: number): void {
    this.queue.set(size);
  }

  setCommitLag(controller: string, entries: number | undefined, seconds: number): void {
    if (entries === undefined) this.lagEntries.remove({ controller });
    else this.lagEntries.set({ controller }, entries);
    this.lagSeconds.set({ controller }, seconds);
  }

  setHealth(controller: string, status: number | 'unreachable'): void {
    this.healthOk.set({ controller }, status === 200 ? 1 : 0);
    this.reachable.set({ controller }, status === 200 || status === 429 ? 1 : 0);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private counter(name: AlertsDaemonMetricName): Counter<string> {
    return new Counter({ name, help: help[name], labelNames: [...alertsDaemonMetrics[name].labels], registers: [this.registry] });
  }

  private gauge(name: AlertsDaemonMetricName): Gauge<string> {
    return new Gauge({ name, help: help[name], labelNames: [...alertsDaemonMetrics[name].labels], registers: [this.registry] });
  }
}
