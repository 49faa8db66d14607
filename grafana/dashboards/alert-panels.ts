// Alert panels: one tile per alert of the catalogue, counting its firing instances in each source that raises it
// and linking to its runbook, and tables of what fires now.
import type { Builder } from '@grafana/grafana-foundation-sdk/cog';
import type { Panel } from '@grafana/grafana-foundation-sdk/dashboard';
import { alertCatalogue, runbookUrl, type AlertDefinition } from '../../alerts/catalogue/alert-catalogue.ts';
import { alertFiringQueries, alertQueries } from '../queries/alert-queries.ts';
import type { DashboardOptions } from './dashboard-frame.ts';
import { colors, statPanel, tablePanel, thresholdSteps } from './panel-builders.ts';

const sourceWords = { prometheus: 'the Prometheus rules', daemon: 'the alerts daemon' } as const;

export function alertTile(alert: AlertDefinition, options: DashboardOptions): Builder<Panel> {
  const pages = alert.severity === 'critical';
  return statPanel(
    {
      title: alert.name,
      description: `${pages ? 'Pages' : 'Warns'}: ${alert.summary} Raised by ${alert.sources.map((source) => sourceWords[source]).join(' and ')}; the link opens its runbook.`,
      queries: alertFiringQueries(alert),
      width: 4,
      height: 4,
      thresholds: thresholdSteps([null, colors.ok], [1, pages ? colors.critical : colors.warning]),
      links: [{ title: `Runbook: ${alert.name}`, url: runbookUrl(alert.name, options.runbookBase) }],
    },
    { text: 'value_and_name', background: true },
  );
}

/** Pages first, then warnings, as the catalogue lists them. */
export function alertTiles(options: DashboardOptions): Builder<Panel>[] {
  return alertCatalogue.map((alert) => alertTile(alert, options));
}

export function firingCountPanel(): Builder<Panel> {
  return statPanel(
    {
      title: 'Alerts firing',
      description: 'Alerts of the generated rules firing in Prometheus, and alert instances the alerts daemon holds firing.',
      queries: [alertQueries.firingCount, alertQueries.daemonFiringCount],
      thresholds: thresholdSteps([null, colors.ok], [1, colors.critical]),
    },
    { text: 'value_and_name', background: true },
  );
}

export function firingTables(options: DashboardOptions): Builder<Panel>[] {
  const runbooks = [{ title: 'Runbooks', url: options.runbookBase }];
  return [
    tablePanel({
      title: 'Firing in Prometheus',
      description: 'Alerts of the generated rules firing now, per controller (`all` for a cluster-wide alert). Empty while none fires; each alert\'s tile below links to its runbook.',
      queries: [alertQueries.firing],
      links: runbooks,
    }),
    tablePanel({
      title: 'Firing in the alerts daemon',
      description: 'Alerts the alerts daemon raised from log lines, events and polls and holds firing now. Empty while none fires.',
      queries: [alertQueries.daemonFiring],
      links: runbooks,
    }),
  ];
}
