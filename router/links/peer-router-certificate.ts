// Whether the certificate at the other end of a link is the router the link is with, not merely a certificate of the
// same CA (TLS already checked the chain). Both ends ask: the listener of the dialer's client certificate (the router
// its hello names), the dialer of the listener's server certificate (the router it meant to dial). The certificate
// must name that router as its common name; a SPIFFE id, when it carries one, must be `spiffe://<trustDomain>/router/
// <same id>` of a trust domain identity.ca declares (a controller's certificate is refused); and where the controller
// reported the router's fingerprints (RouterInfo), it must be the very certificate the router enrolled with. A client
// certificate with no router SPIFFE id needs that fingerprint: identities' certificates from the same CA look alike
// otherwise. A server certificate needs neither: of this PKI, only routers' server certificates lack a SPIFFE id
// (controllers' carry theirs; identities' are for clients only, which TLS enforces). Pure.
import type { X509Certificate } from 'node:crypto';
import { commonNameOf, fingerprintOf, spiffeClaimOf } from '../../common/certificates/presented-certificate.ts';

export interface ExpectedPeerRouter {
  readonly routerId: string;
  /** Lowercase SHA-1 hex of this certificate as the controller reported it; undefined when it did not. */
  readonly fingerprint: string | undefined;
  /** The trust domains of identity.ca; empty when it declares none. */
  readonly trustDomains: readonly string[];
  /** The peer's certificate is its `client` one (seen by a listener) or its `server` one (seen by a dialer). */
  readonly role: 'client' | 'server';
}

/** Why the certificate is not the expected router's, or undefined when it is. */
export function peerRouterCertificateProblem(certificate: X509Certificate | undefined, expected: ExpectedPeerRouter): string | undefined {
  if (certificate === undefined) return 'no certificate was presented';
  const { routerId } = expected;
  const commonName = commonNameOf(certificate);
  if (commonName !== routerId) return `the certificate names ${commonName === undefined ? 'no single common name' : `"${commonName}"`}, not router "${routerId}"`;
  const claim = spiffeClaimOf(certificate);
  if (claim.kind === 'unreadable') return `the certificate carries SPIFFE ids that name no router: ${claim.uris.join(', ')}`;
  if (claim.kind === 'one') {
    const { id } = claim;
    const text = `spiffe://${id.trustDomain}/${id.kind}/${id.id}`;
    if (id.kind !== 'router') return `the certificate is a ${id.kind}'s (${text}), not a router's`;
    if (id.id !== routerId) return `the certificate's SPIFFE id ${text} names another router than "${routerId}"`;
    if (expected.trustDomains.length > 0 && !expected.trustDomains.includes(id.trustDomain)) {
      return `the certificate's SPIFFE id ${text} is not of this router's trust domain (${expected.trustDomains.join(', ')})`;
    }
  }
  const fingerprint = fingerprintOf(certificate);
  if (expected.fingerprint !== undefined && fingerprint !== expected.fingerprint) {
    return `the certificate (fingerprint ${fingerprint}) is not the one router "${routerId}" enrolled with (${expected.fingerprint}, as the controller reports it)`;
  }
  if (claim.kind === 'none' && expected.fingerprint === undefined && expected.role === 'client') {
    return `the certificate carries no router SPIFFE id and the controller has reported no fingerprint for router "${routerId}"`;
  }
  return undefined;
}
