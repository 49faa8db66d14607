// The controller's side of an SDK's UpdateToken on a router's edge listener (`edge.updateToken`): the channel logged in
// with an OIDC access token and now presents a newer one, which must be a valid access token of the same API session
// (`z_asid`) and identity that may still dial (the session-dial rule). The channel's current token is read, not
// verified again: it may have expired, which is why the SDK updates it, and the router asks only about a channel
// whose hello this controller's rule accepted. Nothing is written.
import { isJwtShaped, maxApiSessionTokenLength } from '../../common/edge-protocol/api-session-token.ts';
import { decodeJws } from '../oidc/compact-jws.ts';
import type { SessionDialer } from './circuit-service.ts';

export type EdgeTokenUpdateAnswer =
  | { readonly apiSessionId: string; readonly expiresAtMs: number }
  | { readonly refused: { readonly code: 'INVALID_API_SESSION' | 'INVALID_API_SESSION_TYPE'; readonly message: string } };

const refuse = (message: string): EdgeTokenUpdateAnswer => ({ refused: { code: 'INVALID_API_SESSION', message } });

export function checkEdgeTokenUpdate(dialer: SessionDialer | undefined, request: unknown): EdgeTokenUpdateAnswer {
  const body = request as { apiSession?: unknown; token?: unknown } | null;
  const current = typeof body?.apiSession === 'string' ? body.apiSession : '';
  const next = typeof body?.token === 'string' && body.token.length <= maxApiSessionTokenLength ? body.token : '';
  const currentClaims = isJwtShaped(current) ? decodeJws(current)?.payload : undefined;
  if (typeof currentClaims?.z_asid !== 'string' || typeof currentClaims.sub !== 'string') {
    return { refused: { code: 'INVALID_API_SESSION_TYPE', message: 'the channel did not log in with an OIDC access token: only such a session can update its token' } };
  }
  if (!isJwtShaped(next) || !decodeJws(next)) return refuse('invalid token, could not be parsed');
  if (!dialer) return refuse('the controller cannot judge API sessions yet');
  const verdict = dialer(next);
  if (!verdict.ok) return refuse(`invalid token: ${verdict.message}`);
  if (verdict.sessionId !== currentClaims.z_asid) return refuse('API session id does not match');
  if (verdict.identity.id !== currentClaims.sub) return refuse('the token is of another identity');
  if (verdict.expiresAtMs === undefined) return refuse('invalid token: not an OIDC access token');
  return { apiSessionId: verdict.sessionId, expiresAtMs: verdict.expiresAtMs };
}
