// Logs an operator in through a controller's Edge Management API, as `ziti edge login` would: the password
// (`POST /authenticate?method=password`), a TOTP code when the identity owes one (`POST /authenticate/mfa`), then
// `GET /current-identity` to see that it is an administrator. A controller that does not answer is skipped for the
// next; a refusal is final. A session that is not an administrator's is ended at once.

import { describeError } from './http-client.ts';
import type { HttpClient } from './http-client.ts';

export type LoginOutcome =
  | { readonly ok: true; readonly token: string; readonly origin: string; readonly name: string }
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

/** `origins`: the controllers to try, in order (the leader first). */
export async function loginAsAdmin(http: HttpClient, origins: readonly string[], request: LoginRequest, timeoutMs: number): Promise<LoginOutcome> {
  const failures: string[] = [];
  for (const origin of origins) {
    const base = `${origin}${managementPath}`;
    let answer;
    try {
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
    return finishLogin(http, base, origin, token, request, timeoutMs, Array.isArray(dataOf(answer.json).authQueries) ? (dataOf(answer.json).authQueries as unknown[]) : []);
  }
  return { ok: false, status: 503, message: `No controller could log you in: ${failures.join('; ') || 'none configured'}` };
}

async function finishLogin(http: HttpClient, base: string, origin: string, token: string, request: LoginRequest, timeoutMs: number, authQueries: unknown[]): Promise<LoginOutcome> {
  const headers = { 'zt-session': token };
  const logout = () => http.request(`${base}/current-api-session`, { method: 'DELETE', headers, timeoutMs, maxBytes }).catch(() => undefined);
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

/** Ends a controller session (logout); errors are ignored: the session expires by itself anyway. */
export async function logoutAtController(http: HttpClient, origin: string, token: string, timeoutMs: number): Promise<void> {
  await http.request(`${origin}${managementPath}/current-api-session`, { method: 'DELETE', headers: { 'zt-session': token }, timeoutMs, maxBytes }).catch(() => undefined);
}
