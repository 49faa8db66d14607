// The status page's controller sessions over OIDC, where a controller's `/version` offers it: the PKCE login of
// common/oidc-client over the page's HTTP client, the headers a session is sent with (Bearer for OIDC, zt-session for
// legacy), a refresh before the access token expires (at the controller of the login, else at the next one that
// answers: the refresh token works on any controller of the cluster), and the revocation that ends it.

import { createHash, randomBytes } from 'node:crypto';
import { advertisesOidc, oidcPasswordLogin, oidcRefresh, oidcRevoke, OidcLoginError, type OidcSend, type OidcTokens } from '../../common/oidc-client/oidc-pkce-client.ts';
import type { HttpClient } from './http-client.ts';
import type { ControllerSession } from './page-sessions.ts';

/** Refresh when less than this is left of the access token (the shortest allowed lifetime is 10 s). */
export const oidcRefreshMarginMs = 5_000;
const maxBytes = 256 * 1024;

/** One exchange of the OIDC flow over the page's HTTP client (no redirect is followed). */
export function oidcSend(http: HttpClient, timeoutMs: number): OidcSend {
  return async (request) => {
    const answer = await http.request(request.url, { method: request.method, headers: request.headers, ...(request.body !== undefined ? { rawBody: request.body } : {}), timeoutMs, maxBytes });
    return { status: answer.status, headers: answer.headers, body: answer.text };
  };
}

/** Whether the controller at `origin` offers OIDC; a failure to reach it is thrown, as for any request. */
export async function offersOidc(http: HttpClient, origin: string, timeoutMs: number): Promise<boolean> {
  const answer = await http.request(`${origin}/version`, { timeoutMs, maxBytes });
  const json = answer.json as { data?: unknown } | undefined;
  return answer.status === 200 && advertisesOidc(json?.data);
}

export function oidcLogin(http: HttpClient, origin: string, username: string, password: string, code: string | undefined, timeoutMs: number, now: () => number): Promise<OidcTokens> {
  return oidcPasswordLogin(
    { send: oidcSend(http, timeoutMs), randomBytes: (size) => randomBytes(size), now, sha256: (text) => createHash('sha256').update(text).digest() },
    { origin, username, password, totpCode: async () => code },
  );
}

/** The headers a request on this controller session carries. */
export function sessionHeaders(session: ControllerSession): Record<string, string> {
  return session.oidc ? { authorization: `Bearer ${session.token}` } : { 'zt-session': session.token };
}

/**
 * The session as it should be used now: unchanged when legacy or not near expiry; else refreshed at its controller,
 * or at the first of `origins` that answers. Undefined when the refresh token was refused (log in again).
 */
export async function freshSession(http: HttpClient, session: ControllerSession, origins: readonly string[], now: () => number, timeoutMs: number): Promise<ControllerSession | undefined> {
  if (!session.oidc || session.oidc.expiresAtMs - now() > oidcRefreshMarginMs) return session;
  const unreachable: string[] = [];
  for (const origin of [session.origin, ...origins.filter((candidate) => candidate !== session.origin)]) {
    try {
      const tokens = await oidcRefresh({ send: oidcSend(http, timeoutMs), now }, origin, session.oidc.refreshToken);
      return { token: tokens.accessToken, origin, oidc: { refreshToken: tokens.refreshToken, expiresAtMs: tokens.expiresAtMs } };
    } catch (error) {
      if (error instanceof OidcLoginError && error.kind === 'refused') return undefined;
      unreachable.push(`${origin}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no controller could refresh the session: ${unreachable.join('; ')}`);
}

/** Ends an OIDC session on the cluster (its refresh token revoked); errors are the caller's to ignore. */
export function revokeSession(http: HttpClient, session: ControllerSession & { oidc: NonNullable<ControllerSession['oidc']> }, timeoutMs: number): Promise<void> {
  return oidcRevoke({ send: oidcSend(http, timeoutMs) }, session.origin, session.oidc.refreshToken);
}
