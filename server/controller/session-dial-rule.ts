// The session-dial rule: edge clients dial circuits through a router's edge listener with their API session, which
// must be live, fully authenticated, and not owe an external JWT on every request (a circuit cannot carry one).
// The same rule again decides whether a live circuit's session still may, by id and without counting as activity
// (circuit-revocation.ts). A token with a JWT's shape is an OIDC access token, judged by the OIDC session checks
// (oidc-sessions.ts); an OIDC session with no row is judged by id from the newest token this controller saw for it.
import { isJwtShaped } from '../../common/edge-protocol/api-session-token.ts';
import type { Clock } from '../../common/time/clock.ts';
import { isIdentityDisabled } from '../auth/identity-state.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import type { ApiSession } from '../model/entities.ts';
import type { RouterControl } from '../routers/router-control.ts';
import { decodeJws } from '../oidc/compact-jws.ts';

/** Whether an API session may dial now: its identity, posture and session id when it may, the reason when not. */
export function sessionMayDial(services: EdgeServices, clock: Clock, session: ApiSession) {
  const identity = services.identities.find(session.identityId);
  if (!identity) return { ok: false as const, message: 'the API session\'s identity is gone' };
  if (isIdentityDisabled(identity, clock.now())) return { ok: false as const, message: 'the API session\'s identity is disabled' };
  if (session.authQueries.length > 0) return { ok: false as const, message: 'the API session is partially authenticated: outstanding authentication queries must be answered first' };
  if (services.authPolicies.forIdentity(identity).secondary.requireExtJwtSigner !== null) {
    return { ok: false as const, message: 'the identity\'s authentication policy requires an external JWT on every request, which a circuit cannot carry' };
  }
  return { ok: true as const, identity, posture: session, sessionId: session.id };
}

/** Gives the router hub the rule: for a dial by token (which counts as activity) and for a live circuit's session. */
export function applySessionDialRule(routers: RouterControl, services: EdgeServices, clock: Clock): void {
  const { sessions } = services;
  const oidc = services.oidc.enabled ? services.oidc.sessions : undefined;
  routers.setSessionDialer((token) => {
    if (oidc && isJwtShaped(token)) {
      const check = oidc.checkAccessToken(token);
      if (!check.ok) return { ok: false, message: check.error === 'expired' ? 'the access token expired' : `invalid access token: ${check.reason}` };
      const verdict = sessionMayDial(services, clock, check.session);
      return verdict.ok ? { ...verdict, expiresAtMs: check.claims.exp * 1000 } : verdict;
    }
    const found = sessions.lookup(token);
    if (found.state !== 'live') return { ok: false, message: found.state === 'expired' ? 'the API session expired' : 'no such API session' };
    const verdict = sessionMayDial(services, clock, found.session);
    if (verdict.ok) sessions.touch(found.session);
    return verdict;
  });
  routers.setSessionStatus(
    (id) => {
      const session = sessions.get(id);
      if (!session) {
        const status = oidc?.sessionStatus(id);
        if (!status) return { ok: false, message: 'the API session ended' };
        if (!status.ok) return { ok: false, message: status.error === 'expired' ? 'the API session ended: its access token expired and was not refreshed' : status.reason };
        return sessionMayDial(services, clock, status.session);
      }
      if (sessions.isExpired(session)) return { ok: false, message: 'the API session expired' };
      return sessionMayDial(services, clock, session);
    },
    (token) => {
      // A router's own report of its live circuits: the session id is read from the token, which is judged by id next.
      if (oidc && isJwtShaped(token)) {
        const asid = decodeJws(token)?.payload.z_asid;
        return typeof asid === 'string' ? asid : undefined;
      }
      const found = sessions.lookup(token);
      return found.state === 'live' ? found.session.id : undefined;
    },
  );
}
