// The edge-router enrollment JWT (`em: erott`), read before anything is trusted: its claims say where to enroll
// (`iss`, the controller's client API origin), as whom (`sub`, the router id), with what (`jti`, the one-time token)
// and which controllers to dial afterwards (`ctrlAddresses`, `tls:<host>:<port>`). Pure: the signature is checked
// later, against the controller's certificate (enroll-router.ts); here the claims are decoded and judged.

import { decodeJwt, decodeProtectedHeader } from 'jose';

export interface RouterEnrollmentClaims {
  /** https://<host>:<port> of the controller's client API. */
  readonly issuer: string;
  readonly routerId: string;
  readonly token: string;
  /** Unix seconds. */
  readonly expiresAt: number;
  /** Client API origins of the cluster (`ctrls`). */
  readonly controllers: readonly string[];
  /** Control addresses of the cluster (`ctrlAddresses`). */
  readonly ctrlAddresses: readonly string[];
}

export type ClaimsResult = { readonly ok: true; readonly claims: RouterEnrollmentClaims } | { readonly ok: false; readonly message: string };

/** Decodes and checks the claims of an enrollment JWT at `nowMs`; the message says what is wrong. */
export function readEnrollmentClaims(jwt: string, nowMs: number): ClaimsResult {
  const text = jwt.trim();
  let payload: Record<string, unknown>;
  try {
    decodeProtectedHeader(text);
    payload = decodeJwt(text) as Record<string, unknown>;
  } catch (error) {
    return fail(`the enrollment token is not a JWT: ${(error as Error).message}`);
  }
  const method = payload.em;
  if (method !== 'erott') {
    return fail(`the enrollment token is for ${typeof method === 'string' ? `"${method}"` : 'an unknown method'} enrollment, not an edge router (em must be "erott"): create an edge router and use its enrollment JWT`);
  }
  const exp = payload.exp;
  if (typeof exp !== 'number') return fail('the enrollment token has no expiry (exp)');
  if (exp * 1000 <= nowMs) {
    return fail(`the enrollment token expired at ${new Date(exp * 1000).toISOString()}: ask for a new one (re-enroll the edge router on the controller)`);
  }
  const issuer = payload.iss;
  if (typeof issuer !== 'string' || !/^https:\/\/[^/]+/.test(issuer)) return fail('the enrollment token has no https issuer (iss): it cannot say where to enroll');
  if (typeof payload.sub !== 'string' || payload.sub === '') return fail('the enrollment token has no subject (sub): the router id');
  if (typeof payload.jti !== 'string' || payload.jti === '') return fail('the enrollment token has no token id (jti)');
  return {
    ok: true,
    claims: {
      issuer: new URL(issuer).origin,
      routerId: payload.sub,
      token: payload.jti,
      expiresAt: exp,
      controllers: strings(payload.ctrls),
      ctrlAddresses: strings(payload.ctrlAddresses),
    },
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function fail(message: string): ClaimsResult {
  return { ok: false, message };
}
