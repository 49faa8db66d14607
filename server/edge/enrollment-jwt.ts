// The enrollment JWT an admin hands to whoever enrolls (an identity or a router): signed with the controller's own
// identity key, whose certificate the enrolling side sees over TLS; `jti` is the one-time token, `em` the method.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

export interface EnrollmentJwtClaims {
  /** `https://host:port` of the client API, where the token is redeemed. */
  readonly issuer: string;
  /** The id of the identity or router that enrolls. */
  readonly subject: string;
  readonly token: string;
  /** `ott`, `updb`, `erott`, ... */
  readonly method: string;
  /** Every client API origin. */
  readonly controllers: readonly string[];
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
  /** Further claims (e.g. `username`, `ctrlAddresses`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export async function signEnrollmentJwt(keyPem: string, claims: EnrollmentJwtClaims): Promise<string> {
  return new SignJWT({ em: claims.method, ctrls: [...claims.controllers], ...(claims.extra ?? {}) })
    .setProtectedHeader({ alg: jwtAlgorithm(keyPem), typ: 'JWT' })
    .setIssuer(claims.issuer)
    .setSubject(claims.subject)
    .setAudience('')
    .setJti(claims.token)
    .setIssuedAt(Math.floor(claims.issuedAtMs / 1000))
    .setExpirationTime(Math.floor(claims.expiresAtMs / 1000))
    .sign(privateKeyOf(keyPem));
}

/** Parsed signing keys by PEM: parsing one took a tenth of a controller's time creating edge routers, twice per JWT.
 * A controller signs with one or two keys; the bound only keeps a caller with many from growing it. */
const parsedKeys = new Map<string, KeyObject>();
const maxParsedKeys = 8;

export function privateKeyOf(keyPem: string): KeyObject {
  let key = parsedKeys.get(keyPem);
  if (key === undefined) {
    key = createPrivateKey(keyPem);
    if (parsedKeys.size >= maxParsedKeys) parsedKeys.delete(parsedKeys.keys().next().value!);
    parsedKeys.set(keyPem, key);
  }
  return key;
}

/** ES256/384/512 for EC keys by curve, RS256 for RSA, EdDSA for Ed25519. */
export function jwtAlgorithm(keyPem: string): string {
  const key = privateKeyOf(keyPem);
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
}
