// The alerts the alerts daemon holds firing, pages first, each with its runbook link.
import type { AlertsView } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatAgo } from './format.ts';

export function AlertsList({ alerts, now }: { alerts: AlertsView; now: number }) {
  if (alerts.status === 'none') return <p className="note" data-testid="alerts-none">No alerts daemon configured (alertsDaemon.url): no alerts to show.</p>;
  if (alerts.status === 'unreachable') {
    return (
      <p className="warning" role="note" data-testid="alerts-unreachable">
        The alerts daemon does not answer: {alerts.error}
      </p>
    );
  }
  if (alerts.alerts.length === 0) {
    return (
      <p className="note" data-testid="alerts-quiet">
        <Badge level="ok">quiet</Badge> Nothing firing.
      </p>
    );
  }
  return (
    <ul className="alerts">
      {alerts.alerts.map((alert) => {
        const page = alert.severity === 'critical';
        const scope = Object.entries(alert.labels)
          .filter(([name]) => name !== 'alertname' && name !== 'severity' && name !== 'cluster')
          .map(([name, value]) => `${name}=${value}`)
          .join(', ');
        return (
          <li key={`${alert.alertname}-${scope}`} className={`alert alert-${page ? 'critical' : 'warn'}`} data-testid="alert" data-alertname={alert.alertname} data-severity={alert.severity}>
            <div className="alert-head">
              <Badge level={page ? 'critical' : 'warn'}>{page ? 'page' : 'warning'}</Badge>
              <strong>{alert.alertname}</strong>
              <span className="muted">{scope}</span>
              <span className="muted" suppressHydrationWarning>
                since {formatAgo(alert.startsAt, now)}
              </span>
            </div>
            <p>{alert.summary}</p>
            <p className="muted">{alert.description}</p>
            <a href={alert.runbookUrl} target="_blank" rel="noreferrer" data-testid="runbook-link">
              Runbook: {alert.alertname}
            </a>
          </li>
        );
      })}
    </ul>
  );
}
