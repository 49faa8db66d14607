// The claims of the tokens a completed OIDC login earns: who (the identity as it is now), which API session, how it
// logged in, and for which client.
import type { AuthPolicy, Identity } from '../model/entities.ts';
import type { AuthRequest, RequestLogin } from './auth-requests.ts';
import { tokenTypes, type SessionClaims } from './oidc-claims.ts';

export function loginClaims(request: AuthRequest, login: RequestLogin, identity: Identity, policy: AuthPolicy): SessionClaims {
  return {
    sub: identity.id,
    z_asid: request.apiSessionId,
    z_t: tokenTypes.access,
    z_ia: identity.isAdmin,
    ...(identity.externalId ? { z_eid: identity.externalId } : {}),
    z_ct: [...login.configTypes],
    z_authid: login.primary.authenticatorId,
    amr: [...login.amr],
    z_ra: request.remoteAddress,
    ...(login.amr.includes('totp') ? { z_mfa: true } : {}),
    z_ap: policy.id,
    auth_time: Math.floor(login.atMs / 1000),
    azp: request.clientId,
    scope: request.scopes.join(' '),
  };
}

/** Whether the login is whole: a primary method proven and no secondary factor outstanding. */
export function loginComplete(request: AuthRequest): request is AuthRequest & { login: RequestLogin } {
  return request.login !== undefined && request.login.authQueries.length === 0;
}
