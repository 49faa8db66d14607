// The health and metric polls of every controller. Health: `GET /health-checks/controller/raft`, whose status is
// all that counts (200 on the healthy leader, 429 on a follower, 503 when failed; no answer is `unreachable`).
// Metrics: `GET /metrics`, parsed as the Prometheus text format. Each result is handed to the evaluator; a change
// in a controller's answer is logged once, not on every poll.

import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Logger } from '../../common/log/logger.ts';
import type { ControllerWatch } from '../config/alerts-config.ts';
import { controllerMetricsView } from '../core/metrics/controller-metrics-view.ts';
import { parsePrometheusText } from '../core/metrics/prometheus-text.ts';
import type { DaemonMetrics } from './daemon-metrics.ts';
import { httpGet } from './http-get.ts';
import { IntervalTask } from './interval-task.ts';
import type { RecordSink } from './record-sink.ts';

export interface PollSettings {
  readonly healthPollInterval: number;
  readonly healthPollTimeout: number;
  readonly metricsPollInterval: number;
  readonly metricsPollTimeout: number;
}

const maxHealthBytes = 64 * 1024;
const maxMetricsBytes = 32 * 1024 * 1024;

export class ControllerPolls {
  private readonly httpsAgent: HttpsAgent;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 2 });
  private readonly tasks: IntervalTask[] = [];
  private readonly lastOutcome = new Map<string, string>();

  constructor(
    private readonly controllers: readonly ControllerWatch[],
    private readonly settings: PollSettings,
    caPem: string | undefined,
    private readonly deps: { readonly sink: RecordSink; readonly metrics: DaemonMetrics; readonly logger: Logger },
  ) {
    this.httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 2, ...(caPem === undefined ? {} : { ca: caPem }) });
  }

  start(): void {
    const health = this.controllers.filter((controller) => controller.healthUrl !== undefined);
    const metrics = this.controllers.filter((controller) => controller.metricsUrl !== undefined);
    if (health.length > 0) this.tasks.push(new IntervalTask(this.settings.healthPollInterval, () => this.pollAll(health, (controller) => this.pollHealth(controller))));
    if (metrics.length > 0) this.tasks.push(new IntervalTask(this.settings.metricsPollInterval, () => this.pollAll(metrics, (controller) => this.pollMetrics(controller))));
    for (const task of this.tasks) task.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.tasks.map((task) => task.stop()));
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }

  private async pollAll(controllers: readonly ControllerWatch[], poll: (controller: ControllerWatch) => Promise<void>): Promise<void> {
    await Promise.all(controllers.map((controller) => poll(controller)));
  }

  private async pollHealth(controller: ControllerWatch): Promise<void> {
    let status: number | 'unreachable';
    let reason = '';
    try {
      status = (await httpGet(controller.healthUrl!, this.options(this.settings.healthPollTimeout, maxHealthBytes))).status;
    } catch (error) {
      status = 'unreachable';
      reason = (error as Error).message;
    }
    this.deps.metrics.setHealth(controller.id, status);
    this.note(`health ${controller.id}`, String(status), { controller: controller.id, url: controller.healthUrl, status, ...(reason ? { error: reason } : {}) });
    this.deps.sink.observe({ kind: 'health', now: this.deps.sink.now(), controller: controller.id, status });
  }

  private async pollMetrics(controller: ControllerWatch): Promise<void> {
    const now = () => this.deps.sink.now();
    try {
      const result = await httpGet(controller.metricsUrl!, this.options(this.settings.metricsPollTimeout, maxMetricsBytes));
      if (result.status !== 200) throw new Error(`HTTP ${result.status}`);
      const parsed = parsePrometheusText(result.body);
      const problems = parsed.errors.length === 0 ? {} : { malformedLines: parsed.errors.length, firstProblem: `line ${parsed.errors[0]!.line}: ${parsed.errors[0]!.message}` };
      this.note(`metrics ${controller.id}`, 'ok', { controller: controller.id, url: controller.metricsUrl, ...problems });
      this.deps.sink.observe({ kind: 'metrics', now: now(), controller: controller.id, view: controllerMetricsView(parsed.samples) });
    } catch (error) {
      this.note(`metrics ${controller.id}`, 'failed', { controller: controller.id, url: controller.metricsUrl, error: (error as Error).message });
      this.deps.sink.observe({ kind: 'metrics', now: now(), controller: controller.id });
    }
  }

  private options(timeout: number, maxBytes: number) {
    return { timeout, maxBytes, httpsAgent: this.httpsAgent, httpAgent: this.httpAgent };
  }

  /** Logs a poll's outcome when it differs from the last one of the same poll. */
  private note(poll: string, outcome: string, fields: Record<string, unknown>): void {
    if (this.lastOutcome.get(poll) === outcome) return;
    const first = !this.lastOutcome.has(poll);
    this.lastOutcome.set(poll, outcome);
    if (first && (outcome === 'ok' || outcome === '200' || outcome === '429')) return;
    this.deps.logger.info(poll.startsWith('health') ? 'controller health poll changed' : 'controller metrics poll changed', { outcome, ...fields });
  }
}
