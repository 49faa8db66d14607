// Logs an operator in through a controller's Edge Management API, as `ziti edge login` would: where the controller's
// `/version` offers OIDC, through its OIDC provider (PKCE, controller-oidc.ts: tokens every controller honours,
// refreshed before they expire); elsewhere the legacy password login (`POST /authenticate?method=password`) and a TOTP
// code when the identity owes one (`POST /authenticate/mfa`). Then `GET /current-identity` to see that it is an
// administrator. A controller that does not answer is skipped for the next; a refusal is final. A session that is not
// an administrator's is ended at once.

import { OidcLoginError } from '../../common/oidc-client/oidc-pkce-client.ts';
import { offersOidc, oidcLogin, revokeSession, sessionHeaders } from './controller-oidc.ts';
import { describeError } from './http-client.ts';
import type { HttpClient } from './http-client.ts';
import type { ControllerSession } from './page-sessions.ts';

export type LoginOutcome =
  | { readonly ok: true; readonly token: string; readonly origin: string; readonly name: string; readonly oidc?: ControllerSession['oidc'] }
  | { readonly ok: false; readonly status: 400 | 401 | 403 | 429 | 503; readonly message: string; readonly mfaRequired?: boolean };

export interface LoginRequest {
  readonly username: string;
  readonly password: string;
  /** A TOTP or recovery code, for an identity with MFA. */
  readonly code?: string;
}

const managementPath = '/edge/management/v1';
const maxBytes = 256 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const dataOf = (json: unknown): Record<string, unknown> => (isObject(json) && isObject(json.data) ? json.data : {});
const errorCode = (json: unknown): string | undefined => (isObject(json) && isObject(json.error) && typeof json.error.code === 'string' ? json.error.code : undefined);

/** `origins`: the controllers to try, in order (the leader first). `now`: the clock the OIDC token expiry is read on. */
export async function loginAsAdmin(http: HttpClient, origins: readonly string[], request: LoginRequest, timeoutMs: number, now: () => number = () => Date.now()): Promise<LoginOutcome> {
  const failures: string[] = [];
  for (const origin of origins) {
    const base = `${origin}${managementPath}`;
    let answer;
    try {
      if (await offersOidc(http, origin, timeoutMs)) {
        const outcome = await loginThroughOidc(http, origin, request, timeoutMs, now);
        if (outcome.ok || outcome.status !== 503) return outcome;
        failures.push(`${origin}: ${outcome.message}`);
        continue;
      }
      answer = await http.request(`${base}/authenticate?method=password`, { method: 'POST', body: { username: request.username, password: request.password }, timeoutMs, maxBytes });
    } catch (error) {
      failures.push(`${origin}: ${describeError(error)}`);
      continue;
    }
    if (answer.status === 401 || answer.status === 400) return { ok: false, status: 401, message: 'Wrong username or password.' };
    if (answer.status === 429) return { ok: false, status: 429, message: 'Too many failed logins: try again later.' };
    if (answer.status === 503 || answer.status >= 500) {
      failures.push(`${origin}: HTTP ${answer.status}${errorCode(answer.json) ? ` ${errorCode(answer.json)}` : ''}`);
      continue;
    }
    const token = dataOf(answer.json).token;
    if (answer.status !== 200 || typeof token !== 'string') {
      failures.push(`${origin}: unexpected answer HTTP ${answer.status}`);
      continue;
    }
    return finishLogin(http, base, origin, { token, origin }, request, timeoutMs, Array.isArray(dataOf(answer.json).authQueries) ? (dataOf(answer.json).authQueries as unknown[]) : []);
  }
  return { ok: false, status: 503, message: `No controller could log you in: ${failures.join('; ') || 'none configured'}` };
}

/** The OIDC login at one controller; 503 when it stopped answering or broke the flow (the next one is tried). */
async function loginThroughOidc(http: HttpClient, origin: string, request: LoginRequest, timeoutMs: number, now: () => number): Promise<LoginOutcome> {
  let session: ControllerSession;
  try {
    const tokens = await oidcLogin(http, origin, request.username, request.password, request.code, timeoutMs, now);
    session = { token: tokens.accessToken, origin, oidc: { refreshToken: tokens.refreshToken, expiresAtMs: tokens.expiresAtMs } };
  } catch (error) {
    if (!(error instanceof OidcLoginError)) return { ok: false, status: 503, message: describeError(error) };
    if (error.kind === 'mfa-required') return { ok: false, status: 401, message: 'This identity uses MFA: enter a code from its authenticator app.', mfaRequired: true };
    if (error.kind === 'ext-jwt-required') return { ok: false, status: 403, message: 'This identity owes an external JWT, which the status page cannot supply.' };
    if (error.kind === 'protocol') return { ok: false, status: 503, message: error.message };
    if (error.status === 429) return { ok: false, status: 429, message: 'Too many failed logins: try again later.' };
    if (error.code === 'INVALID TOTP CODE') return { ok: false, status: 401, message: 'Wrong MFA code.', mfaRequired: true };
    return { ok: false, status: 401, message: 'Wrong username or password.' };
  }
  const outcome = await finishLogin(http, `${origin}${managementPath}`, origin, session, request, timeoutMs, []);
  return outcome.ok ? { ...outcome, oidc: session.oidc } : outcome;
}

async function finishLogin(http: HttpClient, base: string, origin: string, session: ControllerSession, request: LoginRequest, timeoutMs: number, authQueries: unknown[]): Promise<LoginOutcome> {
  const { token } = session;
  const headers = sessionHeaders(session);
  const logout = () => logoutAtController(http, session, timeoutMs);
  try {
    if (authQueries.some((query) => isObject(query) && query.typeId === 'MFA')) {
      if (!request.code) {
        await logout();
        return { ok: false, status: 401, message: 'This identity uses MFA: enter a code from its authenticator app.', mfaRequired: true };
      }
      const mfa = await http.request(`${base}/authenticate/mfa`, { method: 'POST', headers, body: { code: request.code }, timeoutMs, maxBytes });
      if (mfa.status !== 200) {
        await logout();
        return mfa.status === 429 ? { ok: false, status: 429, message: 'Too many wrong codes: try again later.' } : { ok: false, status: 401, message: 'Wrong MFA code.', mfaRequired: true };
      }
    }
    const identity = await http.request(`${base}/current-identity`, { headers, timeoutMs, maxBytes });
    if (identity.status !== 200) {
      await logout();
      return { ok: false, status: 403, message: 'This session cannot read its identity (does it owe another authentication, such as an external JWT?).' };
    }
    const data = dataOf(identity.json);
    if (data.isAdmin !== true) {
      await logout();
      return { ok: false, status: 403, message: 'Only administrators may open the status page.' };
    }
    return { ok: true, token, origin, name: typeof data.name === 'string' ? data.name : request.username };
  } catch (error) {
    await logout();
    return { ok: false, status: 503, message: `The controller stopped answering during the login: ${describeError(error)}` };
  }
}

/** Ends a controller session (logout; an OIDC one is revoked on the cluster); errors are ignored: the session expires by itself anyway. */
export async function logoutAtController(http: HttpClient, session: ControllerSession, timeoutMs: number): Promise<void> {
  const { oidc } = session;
  if (oidc) await revokeSession(http, { ...session, oidc }, timeoutMs).catch(() => undefined);
  else await http.request(`${session.origin}${managementPath}/current-api-session`, { method: 'DELETE', headers: { 'zt-session': session.token }, timeoutMs, maxBytes }).catch(() => undefined);
}
