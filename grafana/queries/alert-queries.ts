// Firing alerts, from both sources the catalogue names: Prometheus's own ALERTS series (the generated rules) and
// the alerts daemon's edgeward_alerts_firing gauge. The per-alert queries end in `or vector(0)` so that a tile
// reads 0 rather than "no data" while the alert is quiet.
import { alertCatalogue, type AlertDefinition, type AlertSource } from '../../alerts/catalogue/alert-catalogue.ts';
import { defineQueries, type CatalogueQuery } from './catalogue-query.ts';
import { alertsDaemonJob, clusterAlertsDaemon } from './promql-selectors.ts';

/** Only edgeward's alerts: the Prometheus may evaluate other rules too. */
const edgewardAlerts = 'ALERTS{alertstate="firing", alertname=~"Edgeward.+", cluster=~"$cluster"}';
const daemonFiring = `edgeward_alerts_firing${clusterAlertsDaemon()}`;

export const alertQueries = defineQueries('alerts', {
  firingCount: {
    title: 'Alerts firing in Prometheus',
    expr: `count(${edgewardAlerts}) or vector(0)`,
    legend: 'Prometheus',
    unit: 'short',
    metrics: ['ALERTS'],
    seriesWhen: 'always',
  },
  daemonFiringCount: {
    title: 'Alert instances the alerts daemon holds firing',
    expr: `sum(${daemonFiring}) or vector(0)`,
    legend: 'alerts daemon',
    unit: 'short',
    metrics: ['edgeward_alerts_firing'],
    seriesWhen: 'always',
  },
  firing: {
    title: 'Alerts firing in Prometheus, by name, severity and controller',
    expr: `sum by (alertname, severity, controller) (${edgewardAlerts})`,
    legend: '{{alertname}} {{controller}}',
    unit: 'short',
    metrics: ['ALERTS'],
    seriesWhen: 'alert-firing',
    instant: true,
  },
  daemonFiring: {
    title: 'Alerts the alerts daemon holds firing, by name and severity',
    expr: `sum by (alertname, severity) (${daemonFiring}) > 0`,
    legend: '{{alertname}}',
    unit: 'short',
    metrics: ['edgeward_alerts_firing'],
    seriesWhen: 'daemon-alert-firing',
    instant: true,
  },
  daemonUp: {
    title: 'Alerts daemon scrape target up',
    expr: `max by (instance) (up${clusterAlertsDaemon()})`,
    legend: '{{instance}}',
    unit: 'none',
    metrics: ['up'],
    seriesWhen: 'always',
  },
});

const sourceNames: Record<AlertSource, string> = { prometheus: 'Prometheus', daemon: 'alerts daemon' };

/** One query per source that raises the alert: its firing instances in the selected cluster, 0 when none. */
export function alertFiringQueries(alert: AlertDefinition): CatalogueQuery[] {
  return alert.sources.map((source) => ({
    id: `alerts.${alert.name}.${source}`,
    title: `${alert.name} instances firing in the ${sourceNames[source]}`,
    expr:
      source === 'prometheus'
        ? `sum(ALERTS{alertstate="firing", alertname="${alert.name}", cluster=~"$cluster"}) or vector(0)`
        : `sum(edgeward_alerts_firing{job="${alertsDaemonJob}", cluster=~"$cluster", alertname="${alert.name}"}) or vector(0)`,
    legend: sourceNames[source],
    unit: 'short',
    metrics: [source === 'prometheus' ? 'ALERTS' : 'edgeward_alerts_firing'],
    seriesWhen: 'always',
  }));
}

export const perAlertQueries: readonly CatalogueQuery[] = alertCatalogue.flatMap(alertFiringQueries);
