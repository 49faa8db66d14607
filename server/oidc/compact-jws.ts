// JWS compact serialisation (RFC 7515) for RS256 tokens, signed and checked with node:crypto synchronously: a token
// is checked on every request and every circuit request, where a promise per check would cost more than the
// RSA verification itself. Only the encoding is here; the signature is OpenSSL's.
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

export function signRs256(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  const signingInput = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(signingInput), privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
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

export function rs256SignatureValid(decoded: DecodedJws, publicKey: KeyObject): boolean {
  try {
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
