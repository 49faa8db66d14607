// Resolves the zt-session header to a live API session and enforces who may call a route: any session, only a
// fully authenticated one (partially authenticated sessions reach only the spec's short list), or an admin.
import type { Next } from 'koa';
import type { ApiSessionService } from '../edge/api-session-service.ts';
import type { IdentityService } from '../edge/identity-service.ts';
import { ApiError } from './api-error.ts';
import type { ApiContext } from './koa-state.ts';

export type Access = 'partial' | 'full' | 'admin';

const challenge = (error: 'missing' | 'invalid' | 'expired') => {
  const description = { missing: 'no matching token was provided', invalid: 'token is invalid', expired: 'token expired' }[error];
  const session = `zt-session realm="zt-session" error="${error}" error_description="${description}"`;
  return error === 'missing' ? `${session}, Bearer realm="openziti-oidc" error="missing" error_description="${description}"` : session;
};

export function sessionGuard(sessions: ApiSessionService, identities: IdentityService) {
  return (access: Access) =>
    async (ctx: ApiContext, next: Next): Promise<void> => {
      const token = ctx.get('zt-session');
      if (token === '') throw new ApiError('UNAUTHORIZED').withHeader('WWW-Authenticate', challenge('missing'));
      const found = sessions.lookup(token);
      if (found.state === 'expired') throw new ApiError('UNAUTHORIZED').withHeader('WWW-Authenticate', challenge('expired'));
      const session = found.state === 'live' ? found.session : undefined;
      const identity = session ? identities.find(session.identityId) : undefined;
      if (!session || !identity) throw new ApiError('UNAUTHORIZED').withHeader('WWW-Authenticate', challenge('invalid'));
      if (access !== 'partial' && session.authQueries.length > 0) {
        throw new ApiError('UNAUTHORIZED', { code: 'UNAUTHORIZED', message: 'the session is partially authenticated: outstanding authentication queries must be answered first' });
      }
      if (access === 'admin' && !identity.isAdmin) throw new ApiError('UNAUTHORIZED');
      sessions.touch(session);
      ctx.state.session = session;
      ctx.state.token = token;
      ctx.state.identity = identity;
      setExpiryHeaders(ctx, sessions);
      await next();
    };
}

/** `expires-at` and `expiration-seconds` for the request's session. */
export function setExpiryHeaders(ctx: ApiContext, sessions: ApiSessionService): void {
  const session = ctx.state.session;
  if (!session) return;
  const expiresAt = sessions.expiresAtMs(session);
  ctx.set('expiration-seconds', String(Math.max(0, Math.ceil((expiresAt - sessions.now()) / 1000))));
  ctx.set('expires-at', new Date(expiresAt).toISOString());
}
