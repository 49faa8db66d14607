// Where a controller's events come from and go to: the configured handlers (a rotated file or stdout), fed by the
// model's applied changes (entity changes, API sessions), logins and circuits. Each source builds an event only when
// some handler subscribes to its namespace and would take it on this controller now.
import type { Logger } from '../../common/log/logger.ts';
import type { Clock } from '../../common/time/clock.ts';
import { apiSessionEvents } from '../events/api-session-events.ts';
import { authenticationEvent, type AuthenticationAttempt } from '../events/authentication-events.ts';
import { circuitEvent, type CircuitReport } from '../events/circuit-events.ts';
import { entityChangeEvents } from '../events/entity-change-events.ts';
import { EventDispatcher } from '../events/event-dispatcher.ts';
import { fileEventSink, stdoutEventSink } from '../events/event-sinks.ts';
import type { ModelStateMachine } from '../model/model-state-machine.ts';
import type { ControllerOptions } from './controller-options.ts';

export interface EventWiring {
  readonly options: ControllerOptions;
  readonly version: string;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly isLeader: () => boolean;
}

/** The handlers of the `events` section, with the model's entity-change and API-session events wired to them. */
export function startEvents(wiring: EventWiring, stateMachine: ModelStateMachine): EventDispatcher {
  const { options, logger, clock } = wiring;
  const dispatcher = new EventDispatcher(
    options.events.map(({ name, subscriptions, handler }) => ({
      name,
      subscriptions,
      sink:
        handler.type === 'file'
          ? fileEventSink(handler.path, (error) => logger.error('event handler could not append to its file', { handler: name, path: handler.path, error: error.message }), {
              maxBytes: handler.maxsizemb * 1024 * 1024,
              maxBackups: handler.maxbackups,
              now: () => new Date(clock.now()),
            })
          : stdoutEventSink(),
    })),
    wiring.isLeader,
  );
  // Made once, not per apply: a closure made on the apply path costs a defineProperty each time under tsx.
  const eventContext = { controllerId: options.id, version: wiring.version, now: () => clock.now() };
  if (dispatcher.wants('entityChange')) {
    stateMachine.onChanges((applied) => {
      // Most subscriptions take entity changes on the leader only: a follower builds no event nobody takes.
      if (!dispatcher.takesEntityChangesHere()) return;
      for (const event of entityChangeEvents(applied, eventContext)) dispatcher.dispatch('entityChange', event);
    });
  }
  if (dispatcher.wants('apiSession')) {
    stateMachine.onChanges((applied) => {
      if (!dispatcher.takesAppliedEventsHere('apiSession')) return;
      for (const event of apiSessionEvents(applied, eventContext)) dispatcher.dispatch('apiSession', event);
    });
  }
  return dispatcher;
}

/** Login attempts as `authentication` events; undefined when no handler takes them, so logins build none. */
export function authenticationEvents(dispatcher: EventDispatcher, controllerId: string, clock: Clock): ((attempt: AuthenticationAttempt) => void) | undefined {
  if (!dispatcher.wants('authentication')) return undefined;
  return (attempt) => dispatcher.dispatch('authentication', authenticationEvent(attempt, { controllerId, now: () => clock.now() }));
}

/** A circuit report (from a router, or a refusal here) as a `circuit` event when a handler takes them. */
export function circuitEvents(dispatcher: EventDispatcher, controllerId: string, clock: Clock): (report: CircuitReport) => void {
  return (report) => {
    if (dispatcher.wants('circuit')) dispatcher.dispatch('circuit', circuitEvent(report, { controllerId, now: () => clock.now() }));
  };
}
