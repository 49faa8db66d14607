// One primary login (password, cert or ext-jwt) as both the legacy `/authenticate` and the OIDC login steps run it:
// through the login throttle, counted in the metrics, and reported as an authentication event either way.
import type { TLSSocket } from 'node:tls';
import type { EdgeServices } from '../../edge/edge-services.ts';
import { EdgeError } from '../../edge/edge-error.ts';
import type { PrimaryAuthentication } from '../../edge/login/password-login.ts';
import { peerChain } from '../../auth/cert/peer-chain.ts';
import { bearerTokens } from '../../auth/ext-jwt/bearer-tokens.ts';
import type { AuthenticationAttempt } from '../../events/authentication-events.ts';
import { clientMessageOf } from '../api-error.ts';
import { abandonedSignal } from '../request-abandoned.ts';
import type { ApiContext } from '../koa-state.ts';

export type PrimaryMethod = AuthenticationAttempt['method'];

/** A login that threw: its refusal (who, and why) when the login service gave one, else the error's code. */
function refusedAttempt(method: PrimaryMethod, remoteAddress: string, error: unknown): AuthenticationAttempt {
  const refusal = error instanceof EdgeError ? error.refusal : undefined;
  const fallback = error instanceof EdgeError ? `${error.code}: ${clientMessageOf(error)}` : 'internal error';
  return { method, success: false, remoteAddress, ...refusal, reason: refusal?.reason ?? fallback };
}

/** The credentials of a password login (the other methods take theirs from the connection and headers). */
export interface PasswordCredentials {
  readonly username: string;
  readonly password: string;
}

/** Runs the login; a refusal is counted, reported and rethrown. A success is counted but reported by the caller. */
export async function runPrimaryLogin(services: EdgeServices, ctx: ApiContext, method: PrimaryMethod, remoteAddress: string, password?: PasswordCredentials): Promise<PrimaryAuthentication> {
  const throttle = services.loginThrottle;
  const attempt = (): Promise<PrimaryAuthentication> => {
    switch (method) {
      case 'password':
        return throttle.attempt({ address: remoteAddress, user: `username:${password?.username ?? ''}` }, () =>
          services.passwordLogin.authenticate(password?.username ?? '', password?.password ?? '', abandonedSignal(ctx)),
        );
      case 'cert':
        return throttle.attempt({ address: remoteAddress }, () => services.certLogin.authenticate(peerChain(ctx.req.socket as TLSSocket)));
      default:
        return throttle.attempt({ address: remoteAddress }, () => services.extJwtLogin.authenticate(bearerTokens(ctx.req.headersDistinct.authorization)));
    }
  };
  try {
    const login = await attempt();
    services.countAuthentication(method, 'success');
    return login;
  } catch (error) {
    return loginRefused(services, method, remoteAddress, error);
  }
}

/** A login refused (its body unreadable, its credentials wrong, its client throttled): counted, reported, rethrown. */
export function loginRefused(services: Pick<EdgeServices, 'countAuthentication' | 'reportAuthentication'>, method: PrimaryMethod, remoteAddress: string, error: unknown): never {
  // A 429 checked nothing, so it is no authentication event: a flood of them must not flood the event files.
  // The throttle logs when an address or user runs out instead; the metrics count it as throttled.
  if (error instanceof EdgeError && error.code === 'RATE_LIMITED') {
    services.countAuthentication(method, 'throttled');
  } else {
    services.countAuthentication(method, 'failure');
    services.reportAuthentication(refusedAttempt(method, remoteAddress, error));
  }
  throw error;
}
