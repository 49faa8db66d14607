// The rules for every name the PKI certifies. Each check returns the normalized value or throws
// PkiError('INVALID_ARGUMENT'), so the library and the CLI reject the same inputs with the same words.
import { isIP } from 'node:net';
import { PkiError } from './pki-error.ts';

const idPattern = /^[A-Za-z0-9._-]{1,64}$/;
const dnsLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const controlCharacter = /\p{Cc}/u;
const maxValidityDays = 36_500;

function invalid(what: string, value: unknown, rule: string): PkiError {
  return new PkiError('INVALID_ARGUMENT', `invalid ${what} ${JSON.stringify(value)}: ${rule}`);
}

/** An id that is also a SPIFFE path segment and a directory name, hence no "." or "..". */
export function requireId(value: string, what = 'id'): string {
  if (typeof value !== 'string' || !idPattern.test(value) || value === '.' || value === '..') {
    throw invalid(what, value, 'use 1-64 characters from A-Z a-z 0-9 . _ - (not "." or "..")');
  }
  return value;
}

/** SPIFFE trust domains are lowercase, so we require a lowercase DNS-like name rather than fold case silently. */
export function requireTrustDomain(value: string): string {
  const rule = 'use a lowercase DNS-like name such as "edgeward.local" (labels of a-z 0-9 -, at most 253 characters)';
  if (typeof value !== 'string' || value.length === 0 || value.length > 253) throw invalid('trust domain', value, rule);
  if (!value.split('.').every((label) => dnsLabel.test(label))) throw invalid('trust domain', value, rule);
  return value;
}

/** A DNS SAN; one leading "*." wildcard label is allowed. Returned lowercased, as DNS is case-insensitive. */
export function requireDnsName(value: string): string {
  const rule = 'use a DNS name such as "ctrl1.example.com" (labels of letters, digits and -, optional leading "*.")';
  if (typeof value !== 'string' || value.length === 0 || value.length > 253) throw invalid('DNS name', value, rule);
  const name = value.toLowerCase();
  const labels = name.startsWith('*.') ? name.slice(2).split('.') : name.split('.');
  if (!labels.every((label) => dnsLabel.test(label))) throw invalid('DNS name', value, rule);
  return name;
}

/** An IP SAN in canonical form: IPv6 is compressed and IPv4-mapped tails become hex, which the encoder needs. */
export function requireIpAddress(value: string): string {
  const rule = 'use an IPv4 or IPv6 address such as "127.0.0.1" or "::1" (no zone, no prefix)';
  if (typeof value !== 'string') throw invalid('IP address', value, rule);
  const family = isIP(value);
  if (family === 4) return value;
  if (family === 6 && !value.includes('%')) return new URL(`http://[${value}]`).hostname.slice(1, -1);
  throw invalid('IP address', value, rule);
}

/** X.520 caps a common name at 64 characters; control characters would garble logs and `pki show`. */
export function requireCommonName(value: string): string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > 64 || controlCharacter.test(value)) {
    throw invalid('common name', value, 'use 1-64 printable characters');
  }
  return value;
}

export function requireValidityDays(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > maxValidityDays) {
    throw invalid('validity', value, `use a whole number of days from 1 to ${maxValidityDays}`);
  }
  return value;
}
