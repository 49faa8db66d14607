// Pulls bearer tokens out of Authorization header values. Node keeps only the first `authorization` header, but a
// caller reading raw headers may pass every value; a proxy may also fold repeated headers into one, comma-joined.
// Commas are safe to split on: a bearer token (RFC 6750 b64token, and so a JWT) never contains one.

/** At most a primary and two secondary tokens; anything beyond is ignored rather than verified at our expense. */
export const maxBearerTokens = 3;

const bearerCredential = /^bearer[ \t]+(\S+)$/i;

export function bearerTokens(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const tokens: string[] = [];
  for (const value of values) {
    for (const credential of value.split(',')) {
      const match = bearerCredential.exec(credential.trim());
      if (match?.[1] === undefined) continue;
      tokens.push(match[1]);
      if (tokens.length === maxBearerTokens) return tokens;
    }
  }
  return tokens;
}
