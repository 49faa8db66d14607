// The last cluster events from the controllers' event files, newest first.
import type { ClusterEventView, Level } from '../state/snapshot.ts';
import { Badge } from './badges.tsx';
import { formatClock } from './format.ts';

function levelOf(eventType: string): Level | 'muted' {
  if (eventType === 'state.is_leaderless' || eventType === 'state.ro' || eventType === 'peer.disconnected') return 'critical';
  if (eventType === 'leadership.lost' || eventType === 'members.changed') return 'warn';
  if (eventType === 'state.has_leader' || eventType === 'leadership.gained' || eventType === 'peer.connected' || eventType === 'state.rw') return 'ok';
  return 'muted';
}

export function EventsList({ events, configured }: { events: readonly ClusterEventView[]; configured: boolean }) {
  if (events.length === 0) {
    return <p className="note">{configured ? 'No cluster events read yet.' : 'No event files configured (controllers[].eventsFile).'}</p>;
  }
  return (
    <ol className="events" data-testid="events">
      {events.map((event, index) => (
        <li key={`${event.at}-${event.controller}-${event.eventType}-${index}`} data-testid="event-row" data-event-type={event.eventType}>
          <time dateTime={new Date(event.at).toISOString()} suppressHydrationWarning>
            {formatClock(event.at)}
          </time>
          <span className="event-controller">{event.controller}</span>
          <Badge level={levelOf(event.eventType)}>{event.eventType}</Badge>
          {event.detail ? <span className="event-detail">{event.detail}</span> : null}
        </li>
      ))}
    </ol>
  );
}
