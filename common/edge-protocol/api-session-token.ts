// The two kinds of API session token an SDK presents (edge hello header 1002, UpdateToken's body, circuit requests):
// a legacy `zt-session` token (a UUID) or an OIDC access token (a JWT). Routers and controllers tell them apart by
// shape alone, as OpenZiti's router does; only the controller verifies either.

/** The most characters an API session token may have on the wire (an OIDC access token with many claims fits). */
export const maxApiSessionTokenLength = 8_192;

const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True when the token has a JWT's shape (three base64url parts): it is judged as an OIDC access token. */
export function isJwtShaped(token: string): boolean {
  return token.length <= maxApiSessionTokenLength && jwtShape.test(token);
}
