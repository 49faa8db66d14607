// Every query of every panel of the committed Grafana dashboards, run against a real Prometheus as Grafana would
// run it (template variables filled in; a range query unless the panel asks for an instant one). Shared by the
// dashboards' live test and the demo's test, which checks them against the demo's own Prometheus.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { queryCatalogue, type CatalogueQuery, type SeriesCondition } from '../../grafana/queries/query-catalogue.ts';
import { expandTemplateVariables } from '../../grafana/queries/template-variables.ts';
import type { PromAnswer, PrometheusClient } from './prometheus-server.ts';

const dashboardsDir = fileURLToPath(new URL('../../grafana/generated/dashboards/', import.meta.url));

export interface PanelTarget {
  readonly where: string;
  readonly query: CatalogueQuery;
  readonly instant: boolean;
}

/** Every target of every panel of the committed dashboards, with the catalogue entry its expression comes from. */
export function panelTargets(): PanelTarget[] {
  const targets: PanelTarget[] = [];
  for (const file of readdirSync(dashboardsDir).sort()) {
    const dashboard = JSON.parse(readFileSync(join(dashboardsDir, file), 'utf8')) as { uid: string; panels: { type: string; title: string; targets?: { expr: string; refId: string; instant?: boolean }[] }[] };
    for (const panel of dashboard.panels) {
      for (const target of panel.targets ?? []) {
        const query = queryCatalogue.find((candidate) => candidate.expr === target.expr);
        assert.ok(query, `${dashboard.uid}: ${panel.title}: a query that is not in the catalogue: ${target.expr}`);
        targets.push({ where: `${dashboard.uid} / ${panel.title} / ${target.refId} (${query.id})`, query, instant: target.instant === true });
      }
    }
  }
  return targets;
}

export const targetsWhen = (targets: readonly PanelTarget[], ...conditions: SeriesCondition[]) => targets.filter((target) => conditions.includes(target.query.seriesWhen));

export class PanelQueryRunner {
  constructor(
    private readonly prometheus: PrometheusClient,
    /** The dashboards' template variables: cluster, controller, router, __rate_interval, __interval, __range. */
    private readonly variables: Readonly<Record<string, string>>,
  ) {}

  expression(target: PanelTarget): string {
    return expandTemplateVariables(target.query.expr, this.variables);
  }

  run(target: PanelTarget): Promise<PromAnswer> {
    const expr = this.expression(target);
    return target.instant ? this.prometheus.query(expr) : this.prometheus.queryRange(expr, 60, 5);
  }

  /**
   * Runs the targets until each has returned series, for at most `timeoutMs` (a series a scrape or two away is still
   * coming); a query Prometheus cannot parse or run fails at once. Returns what never returned series.
   */
  async untilSeries(targets: readonly PanelTarget[], timeoutMs: number): Promise<string[]> {
    let pending = [...targets];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const still: PanelTarget[] = [];
      for (const target of pending) {
        const answer = await this.run(target);
        if (!answer.ok) assert.fail(`${target.where}: Prometheus refused ${this.expression(target)}: ${answer.error}`);
        if (answer.series.length === 0) still.push(target);
      }
      pending = still;
      if (pending.length === 0 || Date.now() > deadline) return pending.map((target) => `${target.where}: ${target.query.expr}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
