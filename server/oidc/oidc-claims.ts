// The claims of edgeward's OIDC tokens, named as OpenZiti's controller names them (common/oidc_tokens.go), so that
// clients and tools written for it read ours: `z_t` tells an access token ("a") from a refresh token ("r"), `z_asid`
// is the API session every token of one login shares, across refreshes and controllers.

export const tokenTypes = { access: 'a', refresh: 'r' } as const;
export type TokenType = (typeof tokenTypes)[keyof typeof tokenTypes];

/** The audience of access tokens, and the client id of OpenZiti's SDKs. */
export const openZitiAudience = 'openziti';

export interface SessionClaims {
  /** The identity's id. */
  readonly sub: string;
  readonly z_asid: string;
  readonly z_t: TokenType;
  readonly z_ia: boolean;
  readonly z_eid?: string;
  readonly z_ct: readonly string[];
  readonly z_authid: string;
  /** How the login proved who it was: password, cert or ext-jwt (OpenID's amr). */
  readonly amr: readonly string[];
  /** The client address of the login. */
  readonly z_ra: string;
  /** True when the login answered a TOTP code. */
  readonly z_mfa?: boolean;
  /** The auth policy the identity logged in under: a token outlives no change of it. */
  readonly z_ap?: string;
  /** When the login completed, seconds since the epoch (OpenID's auth_time): a session starts there. */
  readonly auth_time: number;
  /** The OAuth client that asked for the token. */
  readonly azp: string;
  readonly scope?: string;
}

export interface VerifiedClaims extends SessionClaims {
  readonly iss: string;
  readonly aud: string | readonly string[];
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}
