// Routes events to the handlers whose subscriptions ask for them. Entity change events go out only from the
// leader unless a subscription sets propagateAlways, so an operator can compare apply progress across controllers.
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

export class EventDispatcher {
  constructor(
    private readonly handlers: readonly EventHandlerBinding[],
    private readonly isLeader: () => boolean,
  ) {}

  wants(namespace: string): boolean {
    return this.handlers.some((handler) => handler.subscriptions.some((subscription) => subscription.type === namespace));
  }

  /** Whether an entity change event would reach any handler on this controller now (leader, or propagateAlways). */
  takesEntityChangesHere(): boolean {
    const leader = this.isLeader();
    return this.handlers.some((handler) => handler.subscriptions.some((subscription) => subscription.type === 'entityChange' && (leader || subscription.propagateAlways === true)));
  }

  dispatch(namespace: string, event: Record<string, unknown>): void {
    for (const handler of this.handlers) {
      const subscription = handler.subscriptions.find((candidate) => candidate.type === namespace);
      if (!subscription) continue;
      if (namespace === 'entityChange') {
        if (!subscription.propagateAlways && !this.isLeader()) continue;
        if (subscription.include && subscription.include.length > 0 && !subscription.include.includes(String(event.entityType))) continue;
      }
      handler.sink.write(event);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.handlers.map((handler) => handler.sink.close()));
  }
}
