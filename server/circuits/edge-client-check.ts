// The controller's side of an SDK's hello on a router's edge listener (`edge.hello`): the API session token must name
// a live session that may dial (the session-dial rule), the TLS client certificate must be one of that identity's
// (a cert authenticator's, or one the session was issued: an API-session certificate), and an edge router policy must grant the identity this router. Nothing is written.
import type { ApiSession, Authenticator } from '../model/entities.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { maxApiSessionTokenLength } from '../../common/edge-protocol/api-session-token.ts';
import { tables } from '../model/entities.ts';
import { routerGrantLookups } from './router-grant-lookups.ts';
import type { SessionDialer } from './circuit-service.ts';
import type { ModelStore } from '../store/model-store.ts';
import type { DialGrants } from './dial-grants.ts';

export type EdgeHelloAnswer =
  | { readonly identityId: string; readonly identityName: string; readonly apiSessionId: string; /** An OIDC access token's expiry (ms): the router closes the channel then unless the SDK updates the token. */ readonly expiresAtMs?: number }
  | { readonly refused: { readonly code: 'INVALID_SESSION' | 'INVALID_CERTIFICATE' | 'NO_EDGE_ROUTER_POLICY' | 'INVALID_REQUEST'; readonly message: string } };

/** Whether the certificate is one the API session was issued (`/current-api-session/certificates`) and valid now. */
function sessionCertificateValid(store: ModelStore, apiSessionId: string | undefined, fingerprint: string, nowMs: number): boolean {
  if (apiSessionId === undefined) return false;
  const certificate = store.table<ApiSession>(tables.apiSessions).get(apiSessionId)?.certificates?.find((candidate) => candidate.fingerprint === fingerprint);
  const now = isoTime(nowMs);
  return certificate !== undefined && certificate.validFrom <= now && certificate.validTo > now;
}

export function checkEdgeHello(store: ModelStore, grants: DialGrants, dialer: SessionDialer | undefined, routerId: string, request: unknown, nowMs: number): EdgeHelloAnswer {
  const body = request as { apiSession?: unknown; certFingerprint?: unknown } | null;
  const token = typeof body?.apiSession === 'string' && body.apiSession.length <= maxApiSessionTokenLength ? body.apiSession : '';
  if (token === '') return { refused: { code: 'INVALID_SESSION', message: 'the hello carries no API session token' } };
  const resolved = dialer ? dialer(token) : { ok: false as const, message: 'the controller cannot judge API sessions yet' };
  if (!resolved.ok) return { refused: { code: 'INVALID_SESSION', message: resolved.message } };
  const fingerprint = typeof body?.certFingerprint === 'string' ? body.certFingerprint.toLowerCase() : '';
  if (fingerprint === '') return { refused: { code: 'INVALID_CERTIFICATE', message: 'an SDK must present its identity certificate to the edge router' } };
  const authenticator = store.table<Authenticator>(tables.authenticators).findUnique('fingerprint', fingerprint);
  const ownCertificate = authenticator !== undefined && authenticator.identityId === resolved.identity.id;
  if (!ownCertificate && !sessionCertificateValid(store, resolved.sessionId, fingerprint, nowMs)) {
    return { refused: { code: 'INVALID_CERTIFICATE', message: "the client certificate is not one of the API session's identity" } };
  }
  if (!routerGrantLookups(store, grants).identityRouters(resolved.identity).has(routerId)) {
    return { refused: { code: 'NO_EDGE_ROUTER_POLICY', message: 'no edge router policy lets this identity use this router' } };
  }
  const name = (resolved.identity as { name?: unknown }).name;
  return {
    identityId: resolved.identity.id,
    identityName: typeof name === 'string' ? name : resolved.identity.id,
    apiSessionId: resolved.sessionId ?? '',
    ...(resolved.expiresAtMs !== undefined ? { expiresAtMs: resolved.expiresAtMs } : {}),
  };
}
