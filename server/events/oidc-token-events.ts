// What an OIDC token event (server/oidc/oidc-events.ts) looks like in the event files. OpenZiti writes an `apiSession`
// event of type `jwt` each time it issues tokens (`created` at the end of a login, `refreshed`, `exchanged`);
// edgeward writes those in the same shape, a `revoked` one when a token or its session is revoked, and an
// `authentication` event `fail` of type `oidc` when the token endpoint refuses a refresh or an exchange, so that a
// storm of refused refreshes (after a key rotation, say) shows where operators already look for failed logins.
// Pure: an event in, the namespace and the record out. No token ever appears.
import type { OidcTokenEvent } from '../oidc/oidc-events.ts';

export interface OidcTokenEventContext {
  readonly controllerId: string;
  readonly now: () => number;
}

export interface OidcEventRecord {
  readonly namespace: 'apiSession' | 'authentication';
  readonly event: Record<string, unknown>;
}

/** OAuth's token-exchange grant, named by its URN on the wire. */
const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** The apiSession event type of a token event: OpenZiti's for issue, refresh and exchange, edgeward's `revoked`. */
function apiSessionEventType(event: OidcTokenEvent): string {
  if (event.kind === 'issued') return 'created';
  if (event.kind === 'revoked') return 'revoked';
  return event.grant === tokenExchangeGrant ? 'exchanged' : 'refreshed';
}

export function oidcTokenEventRecord(event: OidcTokenEvent, context: OidcTokenEventContext): OidcEventRecord {
  const timestamp = new Date(context.now()).toISOString();
  if (event.kind === 'refused') {
    return {
      namespace: 'authentication',
      event: {
        namespace: 'authentication',
        event_src_id: context.controllerId,
        timestamp,
        event_type: 'fail',
        type: 'oidc',
        authenticator_id: '',
        external_jwt_signer_id: '',
        identity_id: event.identityId ?? '',
        auth_policy_id: '',
        remote_address: event.remoteAddress ?? '',
        success: false,
        reason: `${grantName(event.grant)} refused: ${event.reason ?? 'unknown'}`,
        improper_client_cert_chain: false,
      },
    };
  }
  return {
    namespace: 'apiSession',
    event: {
      namespace: 'apiSession',
      event_src_id: context.controllerId,
      timestamp,
      event_type: apiSessionEventType(event),
      id: event.apiSessionId ?? '',
      type: 'jwt',
      identity_id: event.identityId ?? '',
      ip_address: event.remoteAddress ?? '',
      // What was granted or revoked: authorization_code, refresh_token, token_exchange; access_token, end_session.
      grant: grantName(event.grant),
      ...(event.method !== undefined ? { auth_method: event.method } : {}),
    },
  };
}

/** A grant's short name: the token-exchange URN becomes `token_exchange`. */
export function grantName(grant: string): string {
  return grant === tokenExchangeGrant ? 'token_exchange' : grant;
}
