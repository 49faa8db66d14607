// The JWS algorithms a public key may verify, decided by the key and never by the token. Pinning the list is what
// defeats `alg: none` and the HS256 confusion attack (an HMAC "signed" with the issuer's public key as the secret).
import type { KeyObject } from 'node:crypto';

const rsa = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
const rsaPss = ['PS256', 'PS384', 'PS512'] as const;
const ecByCurve: Readonly<Record<string, string>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
const ed25519 = ['EdDSA', 'Ed25519'] as const;

/** Every algorithm some key may verify: a token naming any other (`none`, HS256, …) needs no key lookup at all. */
export const acceptedAlgorithms: ReadonlySet<string> = new Set<string>([...rsa, ...Object.values(ecByCurve), ...ed25519]);

/** Empty when the key cannot verify any algorithm we accept (including any secret key). */
export function algorithmsForKey(key: KeyObject): string[] {
  if (key.type !== 'public') return [];
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return [...rsa];
    case 'rsa-pss':
      return [...rsaPss];
    case 'ec': {
      const alg = ecByCurve[key.asymmetricKeyDetails?.namedCurve ?? ''];
      return alg === undefined ? [] : [alg];
    }
    case 'ed25519':
      return [...ed25519];
    default:
      return [];
  }
}

export function describeKey(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `${key.asymmetricKeyType ?? key.type}${curve === undefined ? '' : ` ${curve}`} key`;
}
