// The claims of an identity's enrollment JWT (`edgeward edge create identity ... -o x.jwt`, or the management API's
// enrollment `jwt`), read before anything is trusted: who enrolls (`sub`), where (`iss`, the controller's
// https://host:port), with which one-time token (`jti`) and method (`em`), until when (`exp`). Pure: text and a time
// in, claims or the reason they are unusable out. The signature is checked later, against the controller's key.
import { decodeJwt, decodeProtectedHeader } from 'jose';

export type IdentityEnrollmentMethod = 'ott' | 'ottca' | 'updb';

export interface IdentityEnrollmentClaims {
  readonly issuer: string;
  readonly identityId: string;
  readonly token: string;
  readonly method: IdentityEnrollmentMethod;
  readonly expiresAtMs: number;
  /** updb: the username the enrollment sets. */
  readonly username?: string;
  /** The JOSE `kid`, when the controller set one. */
  readonly keyId?: string;
}

export type ClaimsOutcome = { readonly ok: true; readonly claims: IdentityEnrollmentClaims } | { readonly ok: false; readonly message: string };

const identityMethods: readonly string[] = ['ott', 'ottca', 'updb'];

export function readIdentityEnrollmentClaims(jwt: string, nowMs: number): ClaimsOutcome {
  const fail = (message: string): ClaimsOutcome => ({ ok: false, message });
  let payload: Record<string, unknown>;
  let header: Record<string, unknown>;
  try {
    payload = decodeJwt(jwt.trim());
    header = decodeProtectedHeader(jwt.trim());
  } catch {
    return fail('the file is not an enrollment JWT (three base64url parts: header, claims, signature)');
  }
  const { iss, sub, jti, em, exp } = payload;
  if (typeof em !== 'string') return fail('the JWT has no enrollment method (em): it is not an enrollment token');
  if (em === 'erott') return fail("the JWT enrolls an edge router (em erott): use 'edgeward router enroll <router.yml> --jwt <file>'");
  if (!identityMethods.includes(em)) return fail(`the JWT's enrollment method '${em}' is not one an identity enrolls with (ott, ottca, updb)`);
  if (typeof iss !== 'string' || !isHttpsOrigin(iss)) return fail(`the JWT's issuer (iss) is not a controller's https://host:port: ${JSON.stringify(iss)}`);
  if (typeof sub !== 'string' || sub === '') return fail('the JWT names no identity (sub)');
  if (typeof jti !== 'string' || jti === '') return fail('the JWT carries no one-time token (jti)');
  if (typeof exp !== 'number') return fail('the JWT has no expiry (exp)');
  const expiresAtMs = exp * 1000;
  if (expiresAtMs <= nowMs) return fail(`the enrollment token expired at ${new Date(expiresAtMs).toISOString()}: ask an administrator for a new one`);
  return {
    ok: true,
    claims: {
      issuer: iss.replace(/\/+$/, ''),
      identityId: sub,
      token: jti,
      method: em as IdentityEnrollmentMethod,
      expiresAtMs,
      ...(typeof payload.username === 'string' ? { username: payload.username } : {}),
      ...(typeof header.kid === 'string' ? { keyId: header.kid } : {}),
    },
  };
}

function isHttpsOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}
