// JWS compact serialisation (RFC 7515) for ES256 (and RS256) tokens, signed and checked with node:crypto
// synchronously: a token is checked on every request and every circuit request, where a promise per check would cost
// more than the verification itself. Only the encoding is here; the signature is OpenSSL's (ES256 as RFC 7518 3.4
// writes it: R and S, 32 bytes each).
import { sign, verify, type KeyObject } from 'node:crypto';
import { maxApiSessionTokenLength } from '../../common/edge-protocol/api-session-token.ts';

export interface DecodedJws {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly signingInput: string;
  readonly signature: Buffer;
}

const base64urlPart = /^[A-Za-z0-9_-]*$/;

/** At most this many characters: a token is a header value, never a document (the routers' limit too). */
export const maxTokenLength = maxApiSessionTokenLength;

export type JwsAlgorithm = 'ES256' | 'RS256';

/** Signs with the key's algorithm (`header.alg` must name it). */
export function signJws(header: Record<string, unknown> & { alg: JwsAlgorithm }, payload: Record<string, unknown>, privateKey: KeyObject): string {
  const signingInput = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(signingInput), header.alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}

export function signRs256(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  return signJws({ ...header, alg: 'RS256' }, payload, privateKey);
}

/** The parts of a compact JWS, or undefined when it is not one (nothing is trusted yet). */
export function decodeJws(token: string): DecodedJws | undefined {
  if (token.length > maxTokenLength) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => base64urlPart.test(part))) return undefined;
  const header = parseObject(parts[0]!);
  const payload = parseObject(parts[1]!);
  if (!header || !payload) return undefined;
  return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') };
}

/** True when `publicKey` made the signature with `algorithm` (the caller pins it: never the token's own word). */
export function signatureValid(decoded: DecodedJws, algorithm: JwsAlgorithm, publicKey: KeyObject): boolean {
  try {
    if (algorithm === 'ES256') return decoded.signature.length === 64 && verify('sha256', Buffer.from(decoded.signingInput), { key: publicKey, dsaEncoding: 'ieee-p1363' }, decoded.signature);
    return verify('sha256', Buffer.from(decoded.signingInput), publicKey, decoded.signature);
  } catch {
    return false;
  }
}

function parseObject(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
