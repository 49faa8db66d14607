// Where the OIDC provider's token events go: the `oidc.tokens` counter and, when a handler takes them, an apiSession
// (or, for a refusal, an authentication) event written by the controller that served the token endpoint; and the
// provider's gauges (pending authorization requests, published signing keys).
import type { Clock } from '../../common/time/clock.ts';
import { oidcTokenEventRecord } from '../events/oidc-token-events.ts';
import type { EventDispatcher } from '../events/event-dispatcher.ts';
import type { OidcTokenEvent } from '../oidc/oidc-events.ts';
import type { OidcServices } from '../oidc/oidc-services.ts';
import type { ControllerMetrics } from '../telemetry/controller-metrics.ts';
import { OidcMetrics } from '../telemetry/oidc-metrics.ts';

export interface OidcObservability {
  /** The provider's `report`: counts the event and writes it to the handlers that take its namespace. */
  readonly onTokenEvent: (event: OidcTokenEvent) => void;
}

/** The token counter and events now; the gauges once the provider exists (`watch`). */
export function oidcObservability(dispatcher: EventDispatcher, metrics: ControllerMetrics, controllerId: string, clock: Clock): OidcObservability & { watch(oidc: OidcServices): void } {
  let provider: OidcServices | undefined;
  const oidcMetrics = new OidcMetrics(metrics.meter, {
    pendingAuthorizationRequests: () => provider?.requests.pending ?? 0,
    publishedSigningKeys: () => provider?.keys.publishedJwks().keys.length ?? 0,
  });
  const context = { controllerId, now: () => clock.now() };
  const writesApiSessions = dispatcher.wants('apiSession');
  const writesAuthentications = dispatcher.wants('authentication');
  return {
    onTokenEvent: (event) => {
      oidcMetrics.token(event);
      if (event.kind === 'refused' ? !writesAuthentications : !writesApiSessions) return;
      const record = oidcTokenEventRecord(event, context);
      dispatcher.dispatch(record.namespace, record.event, true);
    },
    watch: (oidc) => {
      provider = oidc;
    },
  };
}
