// Turns a JWKS `keys` array into public verification keys, and picks the one a token asks for.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface VerificationKey {
  readonly kid: string | undefined;
  readonly alg: string | undefined;
  readonly key: KeyObject;
}

const asymmetricKeyTypes = new Set(['RSA', 'EC', 'OKP']);
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * Keeps only public signature keys. Symmetric (`oct`) keys are dropped so a JWKS can never hand us an HMAC secret;
 * keys carrying private members are dropped too, since a published private key means anyone can forge tokens.
 */
export function verificationKeys(jwks: readonly unknown[]): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const jwk of jwks) {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) continue;
    const members = jwk as Record<string, unknown>;
    if (typeof members.kty !== 'string' || !asymmetricKeyTypes.has(members.kty)) continue;
    if (members.use !== undefined && members.use !== 'sig') continue;
    if (members.key_ops !== undefined && !(Array.isArray(members.key_ops) && members.key_ops.includes('verify'))) continue;
    if (privateMembers.some((name) => members[name] !== undefined)) continue;
    let key: KeyObject;
    try {
      key = createPublicKey({ key: members as JsonWebKey, format: 'jwk' });
    } catch {
      continue; // a malformed key is skipped; the rest of the set stays usable
    }
    keys.push({ kid: optionalString(members.kid), alg: optionalString(members.alg), key });
  }
  return keys;
}

/**
 * Matches by kid (and by alg when both the JWK and the token name one). A token without a kid is only accepted when
 * the set holds exactly one key, so it can never pick an arbitrary key out of several.
 */
export function selectKey(keys: readonly VerificationKey[], kid: string | undefined, alg: string | undefined): KeyObject | undefined {
  const algFits = (candidate: VerificationKey) => alg === undefined || candidate.alg === undefined || candidate.alg === alg;
  if (kid === undefined) {
    const only = keys.length === 1 ? keys[0] : undefined;
    return only !== undefined && algFits(only) ? only.key : undefined;
  }
  return keys.find((candidate) => candidate.kid === kid && algFits(candidate))?.key;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
