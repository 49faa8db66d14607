// Resolves the zt-session header to a live API session and enforces who may call a route: any session, only a
// fully authenticated one (partially authenticated sessions reach only the spec's short list), or an admin. A
// session whose auth policy requires an external JWT signer must also carry a valid JWT from that signer in
// `Authorization: Bearer` on every request; its first valid one answers the session's EXT-JWT auth query.
import type { Next } from 'koa';
import { bearerTokens } from '../auth/ext-jwt/bearer-tokens.ts';
import { extJwtChallenge } from '../edge/login/ext-jwt-login.ts';
import type { EdgeServices } from '../edge/edge-services.ts';
import type { ApiSessionService } from '../edge/api-session-service.ts';
import type { ApiSession, Identity } from '../model/entities.ts';
import { isoTime } from '../../common/time/iso-time.ts';
import { EdgeError } from '../edge/edge-error.ts';
import type { ApiContext } from './koa-state.ts';

export type Access = 'partial' | 'full' | 'admin';

export const extJwtQueryType = 'EXT-JWT';

const challenge = (error: 'missing' | 'invalid' | 'expired') => {
  const description = { missing: 'no matching token was provided', invalid: 'token is invalid', expired: 'token expired' }[error];
  const session = `zt-session realm="zt-session" error="${error}" error_description="${description}"`;
  return error === 'missing' ? `${session}, Bearer realm="openziti-oidc" error="missing" error_description="${description}"` : session;
};

/**
 * `unavailable`: true once this controller's raft node has stopped after a failure. Its model is frozen from then on
 * (a revoked session would still pass), so no session is checked against it: 503 CONTROLLER_UNAVAILABLE.
 */
const oidcChallenge = (error: 'invalid' | 'expired') =>
  `Bearer realm="openziti-oidc" error="${error}" error_description="${error === 'expired' ? 'token expired' : 'token is invalid'}"`;

export function sessionGuard(services: Pick<EdgeServices, 'sessions' | 'identities' | 'authPolicies' | 'extJwtLogin' | 'oidc'>, unavailable: () => boolean = () => false) {
  const { sessions, identities, authPolicies, extJwtLogin, oidc } = services;

  /** The checks after the external JWT's, then the request goes on as `session`. */
  const admit = (ctx: ApiContext, next: Next, access: Access, session: ApiSession, identity: Identity, token: string, tokenExpiresAtMs?: number) => {
    if (access !== 'partial' && session.authQueries.length > 0) {
      throw new EdgeError('UNAUTHORIZED', { code: 'UNAUTHORIZED', message: 'the session is partially authenticated: outstanding authentication queries must be answered first' });
    }
    if (access === 'admin' && !identity.isAdmin) throw new EdgeError('UNAUTHORIZED');
    // An OIDC session without a stored row has no activity to keep: its tokens' lifetimes are its life.
    if (tokenExpiresAtMs === undefined || sessions.get(session.id)) sessions.touch(session);
    ctx.state.session = session;
    ctx.state.token = token;
    ctx.state.identity = identity;
    if (tokenExpiresAtMs === undefined) setExpiryHeaders(ctx, sessions);
    else setTokenExpiryHeaders(ctx, tokenExpiresAtMs, sessions.now());
    return next();
  };

  /** `Authorization: Bearer` with an OIDC access token (and no zt-session): the session the token stands for. */
  const admitOidc = async (ctx: ApiContext, next: Next, access: Access, bearers: readonly string[]) => {
    let check: ReturnType<typeof oidc.sessions.checkAccessToken> | undefined;
    let accessToken = '';
    for (const candidate of bearers) {
      const result = oidc.sessions.checkAccessToken(candidate);
      if (result.ok || check === undefined || result.error === 'expired') check = result;
      if (result.ok) {
        accessToken = candidate;
        break;
      }
    }
    if (!check || !check.ok) throw new EdgeError('UNAUTHORIZED').withChallenge(oidcChallenge(check && !check.ok ? check.error : 'invalid'));
    const { session, identity, claims } = check;
    const requiredSigner = authPolicies.forIdentity(identity).secondary.requireExtJwtSigner;
    if (requiredSigner !== null) {
      // The secondary JWT rides beside the access token on every request, as with a legacy session.
      const secondary = await extJwtLogin.checkSecondary(bearers.filter((candidate) => candidate !== accessToken), requiredSigner, identity);
      if (!secondary.ok) {
        const header = extJwtChallenge('openziti-secondary-ext-jwt', secondary.reason, secondary.signer ? [secondary.signer] : []);
        if (access !== 'partial') throw new EdgeError('UNAUTHORIZED').withChallenge(header);
        ctx.set('WWW-Authenticate', header);
      }
    }
    await admit(ctx, next, access, session, identity, accessToken, claims.exp * 1000);
  };

  /** A session whose policy requires, or no longer requires, an external JWT: may write to answer its query. */
  const withExternalJwt = async (ctx: ApiContext, next: Next, access: Access, found: ApiSession, identity: Identity, token: string, requiredSigner: string | null) => {
    let session = found;
    if (requiredSigner === null) {
      // The policy stopped requiring a signer after this session began: it owes nothing more.
      session = await sessions.satisfyQuery(session, extJwtQueryType);
    } else {
      const check = await extJwtLogin.checkSecondary(bearerTokens(ctx.req.headersDistinct.authorization), requiredSigner, identity);
      if (check.ok) {
        session = await sessions.satisfyQuery(session, extJwtQueryType);
      } else {
        const header = extJwtChallenge('openziti-secondary-ext-jwt', check.reason, check.signer ? [check.signer] : []);
        if (access !== 'partial') throw new EdgeError('UNAUTHORIZED').withChallenge(header);
        // Partial routes still answer, with the challenge, so the client learns what it owes.
        ctx.set('WWW-Authenticate', header);
      }
    }
    await admit(ctx, next, access, session, identity, token);
  };

  // Not an async function: a request that needs no external JWT check passes without a promise or a turn of its own.
  return (access: Access) =>
    (ctx: ApiContext, next: Next): Promise<void> => {
      if (unavailable()) throw new EdgeError('CONTROLLER_UNAVAILABLE');
      const token = ctx.get('zt-session');
      if (token === '') {
        const bearers = oidc.enabled ? bearerTokens(ctx.req.headersDistinct.authorization) : [];
        if (bearers.length > 0) return admitOidc(ctx, next, access, bearers.slice(0, 3));
        throw new EdgeError('UNAUTHORIZED').withChallenge(challenge('missing'));
      }
      const found = sessions.lookup(token);
      if (found.state === 'expired') throw new EdgeError('UNAUTHORIZED').withChallenge(challenge('expired'));
      const session = found.state === 'live' ? found.session : undefined;
      const identity = session ? identities.find(session.identityId) : undefined;
      if (!session || !identity) throw new EdgeError('UNAUTHORIZED').withChallenge(challenge('invalid'));

      const requiredSigner = authPolicies.forIdentity(identity).secondary.requireExtJwtSigner;
      if (requiredSigner !== null || (session.authQueries.length > 0 && session.authQueries.some((query) => query.typeId === extJwtQueryType))) {
        return withExternalJwt(ctx, next, access, session, identity, token, requiredSigner);
      }
      return admit(ctx, next, access, session, identity, token);
    };
}

/** For a token session: the headers say when the presented access token expires. */
function setTokenExpiryHeaders(ctx: ApiContext, expiresAtMs: number, nowMs: number): void {
  ctx.set('expiration-seconds', String(Math.max(0, Math.ceil((expiresAtMs - nowMs) / 1000))));
  ctx.set('expires-at', isoTime(expiresAtMs));
}

/** `expires-at` and `expiration-seconds` for the request's session. */
export function setExpiryHeaders(ctx: ApiContext, sessions: ApiSessionService): void {
  const session = ctx.state.session;
  if (!session) return;
  const expiresAt = sessions.expiresAtMs(session);
  ctx.set('expiration-seconds', String(Math.max(0, Math.ceil((expiresAt - sessions.now()) / 1000))));
  ctx.set('expires-at', isoTime(expiresAt));
}
