// How a certificate names its holder: the SPIFFE id in its URI SAN, and its SHA-1 fingerprint (OpenZiti's form).
import { createHash } from 'node:crypto';
import { parseSpiffeId as parseSpiffeText } from '../certificates/spiffe-id.ts';
import { requireId, requireTrustDomain } from './name-rules.ts';
import { PemMemo } from './pem-memo.ts';
import { PkiError } from './pki-error.ts';
import { parseCertificate, x509 } from './x509-runtime.ts';

/** `spiffe://<trustDomain>/<kind>/<id>`, e.g. kind "controller", "router" or "identity". */
export interface SpiffeId {
  trustDomain: string;
  kind: string;
  id: string;
}

const spiffeScheme = 'spiffe://';
const pathSegment = /^[A-Za-z0-9._-]+$/;

export function formatSpiffeId(spiffeId: SpiffeId): string {
  requireTrustDomain(spiffeId.trustDomain);
  requireId(spiffeId.kind, 'SPIFFE kind');
  requireId(spiffeId.id);
  return `${spiffeScheme}${spiffeId.trustDomain}/${spiffeId.kind}/${spiffeId.id}`;
}

/** Parses the two-segment form we issue; anything else (other paths, bad characters) gives undefined. */
export function parseSpiffeId(uri: string): SpiffeId | undefined {
  return parseSpiffeText(uri);
}

/**
 * Checks any SPIFFE id (one or more path segments, per the SPIFFE spec) and returns its trust domain.
 * Throws PkiError('INVALID_ARGUMENT').
 */
export function requireSpiffeUri(uri: string): { trustDomain: string } {
  const rule = 'use spiffe://<trust-domain>/<segment>[/<segment>...] with segments of A-Z a-z 0-9 . _ -';
  const invalid = new PkiError('INVALID_ARGUMENT', `invalid SPIFFE id ${JSON.stringify(uri)}: ${rule}`);
  if (typeof uri !== 'string' || !uri.startsWith(spiffeScheme) || uri.length > 2048) throw invalid;
  const [trustDomain = '', ...segments] = uri.slice(spiffeScheme.length).split('/');
  if (segments.length === 0) throw invalid;
  if (!segments.every((segment) => pathSegment.test(segment) && segment !== '.' && segment !== '..')) throw invalid;
  try {
    requireTrustDomain(trustDomain);
  } catch {
    throw invalid;
  }
  return { trustDomain };
}

/**
 * The certificate's SPIFFE id, or undefined when it has none, or more than one (an X509-SVID carries exactly one),
 * or one not of the `<kind>/<id>` form. Throws PkiError('INVALID_CERTIFICATE') for unparsable PEM.
 */
export function spiffeIdOf(certPem: string): SpiffeId | undefined {
  const uris = spiffeUrisOf(parseCertificate(certPem));
  return uris.length === 1 ? parseSpiffeId(uris[0]!) : undefined;
}

/** The trust domain a certificate declares (CAs carry the bare `spiffe://<trustDomain>`), if exactly one. */
export function trustDomainOf(certPem: string): string | undefined {
  return trustDomains.get(certPem, (pem) => {
    const domains = new Set(spiffeUrisOf(parseCertificate(pem)).map((uri) => uri.slice(spiffeScheme.length).split('/')[0]!));
    return domains.size === 1 ? [...domains][0] : undefined;
  });
}

/** By PEM text: an issuer's trust domain is asked for on every certificate it signs. */
const trustDomains = new PemMemo<string | undefined>(32);

/** SHA-1 of the DER certificate, lowercase hex without separators, as OpenZiti prints fingerprints. */
export function fingerprintOf(certPem: string): string {
  return createHash('sha1').update(new Uint8Array(parseCertificate(certPem).rawData)).digest('hex');
}

export function uriSansOf(certificate: x509.X509Certificate): string[] {
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  return (san?.names.items ?? []).filter((name) => name.type === 'url').map((name) => name.value);
}

function spiffeUrisOf(certificate: x509.X509Certificate): string[] {
  return uriSansOf(certificate).filter((uri) => uri.toLowerCase().startsWith(spiffeScheme));
}
