// SPIFFE ids as edgeward issues them, `spiffe://<trustDomain>/<kind>/<id>` (kind "controller", "router",
// "identity"), and the bare `spiffe://<trustDomain>` its CAs carry. Shared by the controller, which issues and
// checks them, and the router, which checks whom it dialled. Pure: text in, parts or undefined out.

export interface SpiffeId {
  readonly trustDomain: string;
  readonly kind: string;
  readonly id: string;
}

export const spiffeScheme = 'spiffe://';

const spiffeIdPattern = /^spiffe:\/\/([^/]+)\/([^/]+)\/([^/]+)$/;
const idPattern = /^[A-Za-z0-9._-]{1,64}$/;
const dnsLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** 1-64 characters of A-Z a-z 0-9 . _ -, not "." or "..": a SPIFFE path segment and a directory name. */
export function isSpiffeSegment(value: string): boolean {
  return idPattern.test(value) && value !== '.' && value !== '..';
}

/** A lowercase DNS-like name (SPIFFE trust domains are lowercase), at most 253 characters. */
export function isTrustDomain(value: string): boolean {
  return value.length > 0 && value.length <= 253 && value.split('.').every((label) => dnsLabel.test(label));
}

/** The two-segment form we issue; anything else (other paths, bad characters) gives undefined. */
export function parseSpiffeId(uri: string): SpiffeId | undefined {
  const match = spiffeIdPattern.exec(uri);
  if (!match) return undefined;
  const [, trustDomain, kind, id] = match as unknown as [string, string, string, string];
  if (!isTrustDomain(trustDomain) || !isSpiffeSegment(kind) || !isSpiffeSegment(id)) return undefined;
  return { trustDomain, kind, id };
}

export function isSpiffeUri(uri: string): boolean {
  return uri.toLowerCase().startsWith(spiffeScheme);
}

/** The trust domain of any SPIFFE URI (`spiffe://<trustDomain>[/...]`). */
export function trustDomainOfUri(uri: string): string {
  return uri.slice(spiffeScheme.length).split('/')[0]!;
}
