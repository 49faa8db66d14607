// The OIDC provider's parts on one controller: its signing key and the published ones, the token issuer and
// verifier, the session checks, the authorization requests in progress and the clients it knows.
import type { Clock } from '../../common/time/clock.ts';
import type { ApiSessionService } from '../edge/api-session-service.ts';
import type { AuthPolicyService } from '../edge/auth-policy-service.ts';
import type { ModelWriter } from '../edge/model-writer.ts';
import type { RevocationService } from '../edge/revocation-service.ts';
import type { ModelStore } from '../store/model-store.ts';
import { AuthRequests } from './auth-requests.ts';
import { SupersededRefreshTokens } from './superseded-refresh-tokens.ts';
import type { OidcTokenEvent } from './oidc-events.ts';
import { defaultClients, type OidcClient } from './oidc-clients.ts';
import { OidcSessions } from './oidc-sessions.ts';
import { OidcSigningKeys } from './oidc-signing-keys.ts';
import { OidcTokens, type TokenLifetimes } from './oidc-tokens.ts';

export interface OidcServices {
  /** False when the operator turned OIDC off (`edge.oidc.enabled`) or no client API is bound: /oidc answers 404. */
  readonly enabled: boolean;
  readonly controllerId: string;
  /** This controller's issuer: `https://<client API address>/oidc`. */
  readonly issuer: string;
  readonly keys: OidcSigningKeys;
  readonly tokens: OidcTokens;
  readonly sessions: OidcSessions;
  readonly requests: AuthRequests;
  /** Refresh tokens replaced by a refresh, revoked in batches (flushed by a driver). */
  readonly superseded: SupersededRefreshTokens;
  readonly clients: ReadonlyMap<string, OidcClient>;
  readonly keyRotationMs: number;
  /** Tells metrics and events of what happened to tokens. */
  readonly report: (event: OidcTokenEvent) => void;
}

export interface OidcWiring {
  readonly enabled: boolean;
  readonly store: ModelStore;
  readonly writer: ModelWriter;
  readonly clock: Clock;
  readonly controllerId: string;
  /** https://host:port of the client API. */
  readonly origin: string;
  readonly lifetimes: TokenLifetimes;
  readonly keyRotationMs: number;
  readonly apiSessions: ApiSessionService;
  readonly authPolicies: AuthPolicyService;
  readonly revocations: RevocationService;
  readonly onTokenEvent?: (event: OidcTokenEvent) => void;
}

export function buildOidcServices(wiring: OidcWiring): OidcServices {
  const issuer = `${wiring.origin}/oidc`;
  const keys = new OidcSigningKeys(wiring.store, wiring.writer, wiring.clock, wiring.controllerId, issuer);
  const tokens = new OidcTokens(keys, wiring.clock, wiring.lifetimes);
  const superseded = new SupersededRefreshTokens(wiring.writer, wiring.clock, () => wiring.revocations.count());
  return {
    enabled: wiring.enabled,
    controllerId: wiring.controllerId,
    issuer,
    keys,
    tokens,
    sessions: new OidcSessions(wiring.store, tokens, wiring.apiSessions, wiring.authPolicies, wiring.revocations, wiring.clock, superseded),
    superseded,
    requests: new AuthRequests(wiring.clock),
    clients: defaultClients(),
    keyRotationMs: wiring.keyRotationMs,
    report: wiring.onTokenEvent ?? (() => undefined),
  };
}
