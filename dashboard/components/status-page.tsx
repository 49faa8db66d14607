'use client';
// The status page: the cluster at a glance, refreshed by the one subscription (use-live-state.ts).

import type { ReactNode } from 'react';
import type { Snapshot } from '../state/snapshot.ts';
import { AlertsList } from './alerts-list.tsx';
import { Badge } from './badges.tsx';
import { ControllerCards } from './controller-cards.tsx';
import { EventsList } from './events-list.tsx';
import { formatAgo } from './format.ts';
import { LagTable } from './lag-table.tsx';
import { MemberTable } from './member-table.tsx';
import { MetricChart } from './metric-chart.tsx';
import { RoutersTable } from './routers-table.tsx';
import { CircuitsTable } from './circuits-table.tsx';
import { useLiveState, useNow } from './use-live-state.ts';

function Section({ id, title, children, aside }: { id: string; title: string; children: ReactNode; aside?: ReactNode }) {
  return (
    <section className="section" aria-labelledby={`${id}-title`} id={id}>
      <div className="section-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {aside}
      </div>
      {children}
    </section>
  );
}

async function logout(): Promise<void> {
  await fetch('/api/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
  window.location.assign('/login');
}

export function StatusPage({ initial, loginRequired }: { initial: Snapshot | null; loginRequired: boolean }) {
  const { snapshot, history, connection, receivedAt } = useLiveState(initial, loginRequired);
  const now = useNow();
  if (!snapshot) {
    return (
      <main className="page">
        <h1>edgeward status</h1>
        <p className="note" role="status">
          Waiting for the first look at the cluster…
        </p>
      </main>
    );
  }
  const chartsById = new Map(snapshot.charts.map((chart) => [chart.id, chart]));
  const chart = (id: string) => {
    const found = chartsById.get(id);
    return found ? <MetricChart chart={found} history={history} /> : null;
  };
  const stale = receivedAt !== null && now - receivedAt > Math.max(5000, snapshot.pollIntervalMs * 3);
  const eventFiles = snapshot.controllers.some((controller) => controller.lag?.source === 'event files') || snapshot.events.length > 0;

  return (
    <main className="page">
      <header className={`summary summary-${snapshot.cluster.level}`}>
        <div className="summary-top">
          <h1>edgeward status</h1>
          <div className="summary-tools">
            <span className={`live live-${stale ? 'reconnecting' : connection}`} data-testid="connection" suppressHydrationWarning>
              {connection === 'live' && !stale ? 'live' : connection === 'connecting' ? 'connecting…' : 'reconnecting…'}
              {receivedAt !== null ? ` · updated ${formatAgo(receivedAt, now)}` : ''}
            </span>
            {loginRequired ? (
              <button type="button" className="button-quiet" onClick={() => void logout()}>
                Log out
              </button>
            ) : null}
          </div>
        </div>
        <p className="headline" data-testid="cluster-headline" data-level={snapshot.cluster.level} data-leader={snapshot.cluster.leaderId ?? ''} aria-live="polite">
          <Badge level={snapshot.cluster.level}>{snapshot.cluster.level === 'ok' ? 'healthy' : snapshot.cluster.level === 'warn' ? 'degraded' : 'critical'}</Badge>
          {snapshot.cluster.headline}
        </p>
      </header>

      <Section id="alerts" title="Alerts firing">
        <AlertsList alerts={snapshot.alerts} now={now} />
      </Section>

      <Section id="controllers" title="Controllers">
        <ControllerCards controllers={snapshot.controllers} now={now} />
      </Section>

      <Section id="lag" title="Commit lag">
        <LagTable controllers={snapshot.controllers} />
        <div className="charts">
          {chart('commit-lag-entries')}
          {chart('commit-lag-seconds')}
        </div>
      </Section>

      <Section id="members" title="Members">
        <MemberTable members={snapshot.members} now={now} />
      </Section>

      <Section id="events" title="Last cluster events">
        <EventsList events={snapshot.events} configured={eventFiles} />
      </Section>

      <Section id="raft" title="Raft: rate limiter, work timer, peer latency">
        <div className="charts">
          {chart('rate-limiter-queue')}
          {chart('rate-limiter-window')}
          {chart('work-timer')}
          {chart('peer-latency')}
        </div>
      </Section>

      <Section id="routers" title="Routers">
        <RoutersTable routers={snapshot.routers} />
        <div className="charts">{chart('router-link-latency')}</div>
      </Section>

      <Section id="circuits" title="Circuits">
        <CircuitsTable circuits={snapshot.circuits} routers={snapshot.routers} />
      </Section>

      <footer className="footer">
        Polled every {snapshot.pollIntervalMs / 1000} s; charts keep {Math.round(snapshot.historyMs / 60_000)} min. Figures come from the controllers&apos; health checks, metrics,
        member list and event files, and from the alerts daemon.
      </footer>
    </main>
  );
}
