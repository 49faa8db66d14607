// One card per controller: reachable or not, its role by /health-checks/controller/raft, its health checks, version,
// read-only mode, uptime, raft indexes, commit lag and last backup.
import type { BackupView, ControllerView, Level } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatAgo, formatBytes, formatCount, formatDuration, formatSeconds } from './format.ts';

/** "2 m 5 s ago · 1.50 MiB", "no backup yet", "schedule off"; a stale one in a warning badge. */
function lastBackup(backup: BackupView | undefined, now: number) {
  if (!backup) return '—';
  if (backup.state === 'off') return <span data-backup-state="off">schedule off</span>;
  if (backup.state === 'none') return <span data-backup-state="none">no backup yet (every {formatDuration(backup.intervalSeconds)})</span>;
  const text = `${formatAgo(backup.at, now)} · ${formatBytes(backup.sizeBytes)}${backup.intervalSeconds === 0 ? ' (schedule off)' : ''}`;
  return backup.stale ? (
    <Badge level="warn" title="older than 2.5 backup intervals: EdgewardBackupsStopped">
      <span data-backup-state="stale">{text}</span>
    </Badge>
  ) : (
    <span data-backup-state="written">{text}</span>
  );
}

function roleBadge(controller: ControllerView) {
  if (!controller.reachable) return <Badge level="critical">unreachable</Badge>;
  switch (controller.role) {
    case 'leader':
      return <Badge level="ok">leader · 200</Badge>;
    case 'follower':
      return <Badge level="muted">follower · 429</Badge>;
    case 'failed':
      return <Badge level="critical">failed · 503</Badge>;
    default:
      return <Badge level="warn">{controller.raftStatus === undefined ? 'role unknown' : `raft health ${controller.raftStatus}`}</Badge>;
  }
}

function cardLevel(controller: ControllerView): Level {
  if (!controller.reachable || controller.role === 'failed' || controller.readOnly) return 'critical';
  if (controller.error || controller.metricsError || (controller.health && !controller.health.healthy)) return 'warn';
  return 'ok';
}

export function ControllerCards({ controllers, now }: { controllers: readonly ControllerView[]; now: number }) {
  return (
    <div className="cards">
      {controllers.map((controller) => (
        <article
          key={controller.id}
          className={`card card-${cardLevel(controller)}`}
          data-testid="controller-card"
          data-controller-id={controller.id}
          data-role={controller.reachable ? controller.role : 'unreachable'}
          data-reachable={String(controller.reachable)}
          aria-label={`controller ${controller.id}`}
        >
          <header className="card-head">
            <h3>{controller.id}</h3>
            {roleBadge(controller)}
          </header>
          <p className="url">{controller.url}</p>
          {!controller.reachable ? (
            <p className="error" role="note">
              Not answering: {controller.error}
              {controller.lastSeenAt !== undefined ? <span suppressHydrationWarning> (last answer {formatAgo(controller.lastSeenAt, now)})</span> : null}
            </p>
          ) : null}
          <dl className="facts">
            <dt>Health checks</dt>
            <dd>
              {controller.health ? (
                controller.health.healthy ? (
                  <Badge level="ok">healthy</Badge>
                ) : (
                  <Badge level="critical" title={controller.health.checks.filter((check) => !check.healthy).map((check) => `${check.id}: ${check.error ?? 'failing'}`).join('; ')}>
                    failing: {controller.health.checks.filter((check) => !check.healthy).map((check) => check.id).join(', ')}
                  </Badge>
                )
              ) : (
                '—'
              )}
            </dd>
            <dt>Version</dt>
            <dd>{controller.version ?? '—'}</dd>
            <dt>Read-only</dt>
            <dd>{controller.readOnly === undefined ? '—' : controller.readOnly ? <Badge level="critical">read-only</Badge> : 'no'}</dd>
            <dt>Uptime</dt>
            <dd suppressHydrationWarning>{formatDuration(controller.uptimeSeconds)}</dd>
            <dt>Term</dt>
            <dd>{formatCount(controller.term)}</dd>
            <dt>Commit / applied</dt>
            <dd>
              {formatCount(controller.commitIndex)} / {formatCount(controller.appliedIndex)}
            </dd>
            <dt>Follows</dt>
            <dd>{controller.leaderId === null ? <Badge level="critical">no leader</Badge> : controller.leaderId ?? '—'}</dd>
            <dt>Voters connected</dt>
            <dd>{controller.votersConnected === undefined || controller.voters === undefined ? '—' : `${controller.votersConnected} of ${controller.voters}`}</dd>
            <dt>Commit lag</dt>
            <dd data-testid="controller-lag">
              {controller.lag ? `${controller.lag.entries === undefined ? '—' : `${formatCount(controller.lag.entries)} entries`}${controller.lag.seconds === undefined ? '' : ` · ${formatSeconds(controller.lag.seconds)}`}` : '—'}
            </dd>
            <dt>Last backup</dt>
            <dd data-testid="controller-backup" suppressHydrationWarning>
              {lastBackup(controller.backup, now)}
            </dd>
          </dl>
          {controller.reachable && (controller.error || controller.metricsError) ? <p className="warning">{controller.error ?? `metrics: ${controller.metricsError}`}</p> : null}
        </article>
      ))}
    </div>
  );
}
