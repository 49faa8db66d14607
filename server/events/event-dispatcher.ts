// Routes events to the handlers whose subscriptions ask for them. Events made by applying the replicated log
// (entity changes, API sessions) go out only from the leader unless a subscription sets propagateAlways, so that a
// change is written once across the cluster, or on every controller to compare apply progress.
import type { EventSink } from './event-sinks.ts';

export interface EventSubscription {
  readonly type: string;
  readonly propagateAlways?: boolean;
  readonly include?: readonly string[];
}

export interface EventHandlerBinding {
  readonly name: string;
  readonly subscriptions: readonly EventSubscription[];
  readonly sink: EventSink;
}

/** Namespaces of events made by applying the log: written by the leader unless propagateAlways. */
const appliedNamespaces = new Set(['entityChange', 'apiSession']);
/** The event field a subscription's `include` filters on, by namespace. */
const includeFields: Readonly<Record<string, string>> = { entityChange: 'entityType', apiSession: 'event_type', authentication: 'event_type', circuit: 'event_type' };

export class EventDispatcher {
  constructor(
    private readonly handlers: readonly EventHandlerBinding[],
    private readonly isLeader: () => boolean,
  ) {}

  wants(namespace: string): boolean {
    return this.handlers.some((handler) => handler.subscriptions.some((subscription) => subscription.type === namespace));
  }

  /** Whether an event of this applied-log namespace would reach any handler on this controller now (leader, or
   * propagateAlways): a controller builds no event that nobody takes. */
  takesAppliedEventsHere(namespace: 'entityChange' | 'apiSession'): boolean {
    const leader = this.isLeader();
    return this.handlers.some((handler) => handler.subscriptions.some((subscription) => subscription.type === namespace && (leader || subscription.propagateAlways === true)));
  }

  /** The same for entity change events. */
  takesEntityChangesHere(): boolean {
    return this.takesAppliedEventsHere('entityChange');
  }

  /** `servedHere`: the event tells of something this controller did, not of an applied command (an OIDC token in an
   * applied namespace), so it is written here whichever controller leads. */
  dispatch(namespace: string, event: Record<string, unknown>, servedHere = false): void {
    const applied = appliedNamespaces.has(namespace) && !servedHere;
    const includeField = includeFields[namespace];
    for (const handler of this.handlers) {
      const subscription = handler.subscriptions.find((candidate) => candidate.type === namespace);
      if (!subscription) continue;
      if (applied && !subscription.propagateAlways && !this.isLeader()) continue;
      if (includeField !== undefined && subscription.include && subscription.include.length > 0 && !subscription.include.includes(String(event[includeField]))) continue;
      handler.sink.write(event);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.handlers.map((handler) => handler.sink.close()));
  }
}
