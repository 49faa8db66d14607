// Issues and verifies the JWTs of an OIDC login: an access token (what clients present as `Authorization: Bearer`
// to both Edge APIs and to routers), a refresh token (a JWT too, so any controller can refresh a session another
// controller began, with nothing written per login), and the ID token. Verification takes the key by `kid` from
// the published keys, pins the algorithm, and checks issuer, audience, type and lifetime; revocations and the
// identity's state are the session layer's checks (oidc-sessions.ts).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../common/time/clock.ts';
import { openZitiAudience, tokenTypes, type SessionClaims, type TokenType, type VerifiedClaims } from './oidc-claims.ts';
import { decodeJws, signatureValid, signJws } from './compact-jws.ts';
import { signingAlgorithm, type OidcSigningKeys } from './oidc-signing-keys.ts';

export interface TokenLifetimes {
  readonly accessTokenMs: number;
  readonly refreshTokenMs: number;
  readonly idTokenMs: number;
}

/** OpenZiti's defaults: 30 minutes, 24 hours, 30 minutes. */
export const defaultTokenLifetimes: TokenLifetimes = { accessTokenMs: 30 * 60_000, refreshTokenMs: 24 * 3_600_000, idTokenMs: 30 * 60_000 };

/** The audiences an access token may carry: OpenZiti's two client ids. */
const acceptedAudiences = new Set([openZitiAudience, 'native']);

/** Seconds of clock difference between controllers tolerated on exp and nbf. */
const clockToleranceS = 2;

export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly idToken: string;
  /** Seconds until the access token expires. */
  readonly expiresIn: number;
  readonly accessJti: string;
  readonly refreshJti: string;
  readonly accessExpiresAtMs: number;
}

export type TokenCheck = { ok: true; claims: VerifiedClaims } | { ok: false; error: 'invalid' | 'expired'; reason: string };

/** Refused while this controller's signing key is not yet committed: the client should retry shortly. */
export class SigningKeyUnavailable extends Error {
  constructor() {
    super('this controller has no committed OIDC signing key yet');
  }
}

/** Tokens whose signature was checked, at most this many remembered: a client presents one token many times. */
const maxVerifiedTokens = 10_000;

export class OidcTokens {
  /** token → its payload and the key that signed it (the key must still be published at each use). */
  private readonly verified = new Map<string, { kid: string; payload: Record<string, unknown> }>();

  constructor(
    private readonly keys: OidcSigningKeys,
    private readonly clock: Clock,
    readonly lifetimes: TokenLifetimes,
  ) {}

  /** The longest any token lives: how long a revocation or a retired key must be kept. */
  get longestLifetimeMs(): number {
    return Math.max(this.lifetimes.accessTokenMs, this.lifetimes.refreshTokenMs, this.lifetimes.idTokenMs);
  }

  /** Whether tokens can be issued now (the signing key is committed). */
  get ready(): boolean {
    return this.keys.signingKey() !== undefined;
  }

  /** The access, refresh and ID tokens of a session; each refresh issues a new refresh token with a new lifetime. */
  issue(claims: SessionClaims, options: { nonce?: string } = {}): IssuedTokens {
    const key = this.keys.signingKey();
    if (!key) throw new SigningKeyUnavailable();
    const iat = Math.floor(this.clock.now() / 1000);
    const header = { alg: signingAlgorithm, kid: key.kid, typ: 'JWT' } as const;
    const audience = claims.azp === openZitiAudience ? [openZitiAudience] : [openZitiAudience, claims.azp];
    const registered = (exp: number, jti: string, aud: string | string[]) => ({ iss: key.issuer, aud, iat, nbf: iat, exp, jti });
    const accessExp = iat + Math.floor(this.lifetimes.accessTokenMs / 1000);
    const refreshExp = iat + Math.floor(this.lifetimes.refreshTokenMs / 1000);
    const accessJti = randomUUID();
    const refreshJti = randomUUID();
    const body = { ...claims, client_id: claims.azp };
    const accessToken = signJws(header, { ...body, ...registered(accessExp, accessJti, audience), z_t: tokenTypes.access }, key.privateKey);
    const refreshToken = signJws(header, { ...body, ...registered(refreshExp, refreshJti, audience), z_t: tokenTypes.refresh }, key.privateKey);
    const idToken = signJws(
      header,
      {
        sub: claims.sub,
        auth_time: claims.auth_time,
        azp: claims.azp,
        amr: [...claims.amr],
        z_asid: claims.z_asid,
        z_ia: claims.z_ia,
        ...(options.nonce ? { nonce: options.nonce } : {}),
        ...registered(iat + Math.floor(this.lifetimes.idTokenMs / 1000), randomUUID(), claims.azp),
      },
      key.privateKey,
    );
    return { accessToken, refreshToken, idToken, expiresIn: accessExp - iat, accessJti, refreshJti, accessExpiresAtMs: accessExp * 1000 };
  }

  /** Checks a token's signature, issuer, audience, type and lifetime. */
  verify(token: string, type: TokenType): TokenCheck {
    const signed = this.signedPayload(token);
    if (!signed.ok) return signed;
    const { payload, issuer } = signed;
    if (payload.iss !== issuer) return { ok: false, error: 'invalid', reason: `issuer ${String(payload.iss)} is not the key's` };
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.some((audience) => typeof audience === 'string' && acceptedAudiences.has(audience))) return { ok: false, error: 'invalid', reason: 'wrong audience' };
    if (payload.z_t !== type) return { ok: false, error: 'invalid', reason: `token type ${String(payload.z_t)} where ${type} is needed` };
    for (const name of ['sub', 'jti', 'z_asid'] as const) if (typeof payload[name] !== 'string' || payload[name] === '') return { ok: false, error: 'invalid', reason: `no ${name}` };
    for (const name of ['exp', 'iat', 'auth_time'] as const) if (typeof payload[name] !== 'number') return { ok: false, error: 'invalid', reason: `no ${name}` };
    if (!Array.isArray(payload.z_ct) || !Array.isArray(payload.amr) || typeof payload.azp !== 'string') return { ok: false, error: 'invalid', reason: 'malformed claims' };
    const nowS = this.clock.now() / 1000;
    if (typeof payload.nbf === 'number' && payload.nbf > nowS + clockToleranceS) return { ok: false, error: 'invalid', reason: 'token not valid yet' };
    if ((payload.exp as number) <= nowS - clockToleranceS) return { ok: false, error: 'expired', reason: 'token expired' };
    return { ok: true, claims: payload as unknown as VerifiedClaims };
  }

  /** The payload of a token one of the published keys signed, with that key's issuer; the check is remembered. */
  private signedPayload(token: string): { ok: true; payload: Record<string, unknown>; issuer: string } | { ok: false; error: 'invalid'; reason: string } {
    const known = this.verified.get(token);
    if (known) {
      const key = this.keys.verificationKey(known.kid);
      if (key) return { ok: true, payload: known.payload, issuer: key.issuer };
      this.verified.delete(token);
      return { ok: false, error: 'invalid', reason: `unknown signing key ${known.kid}` };
    }
    const decoded = decodeJws(token);
    if (!decoded) return { ok: false, error: 'invalid', reason: 'not a JWT' };
    const { header } = decoded;
    if (typeof header.kid !== 'string') return { ok: false, error: 'invalid', reason: 'no kid' };
    const key = this.keys.verificationKey(header.kid);
    if (!key) return { ok: false, error: 'invalid', reason: `unknown signing key ${header.kid}` };
    // The key decides the algorithm; a token naming another (none, HS256 with the public key as secret) is refused.
    if (header.alg !== key.algorithm) return { ok: false, error: 'invalid', reason: `algorithm ${String(header.alg)} is not the key's ${key.algorithm}` };
    if (!signatureValid(decoded, key.algorithm, key.publicKey)) return { ok: false, error: 'invalid', reason: 'bad signature' };
    if (this.verified.size >= maxVerifiedTokens) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { kid: header.kid, payload: decoded.payload });
    return { ok: true, payload: decoded.payload, issuer: key.issuer };
  }
}
