// The extensions every end-entity certificate carries: not a CA, signature-only key, TLS roles and names.
import type { CertificateIssuer } from './certificate-signer.ts';
import { PkiError } from './pki-error.ts';
import { trustDomainOf } from './spiffe-id.ts';
import { x509 } from './x509-runtime.ts';

export type CertificateUsage = 'client' | 'server' | 'both';

export const certificateUsages: readonly CertificateUsage[] = ['client', 'server', 'both'];

export interface LeafNames {
  usage: CertificateUsage;
  dnsNames: string[];
  ipAddresses: string[];
  spiffeId: string | undefined;
}

export function leafExtensions(names: LeafNames): x509.Extension[] {
  const usages: string[] = [];
  if (names.usage !== 'client') usages.push(x509.ExtendedKeyUsage.serverAuth);
  if (names.usage !== 'server') usages.push(x509.ExtendedKeyUsage.clientAuth);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    // ECDSA keys only sign in TLS (ECDHE does the key exchange), so digitalSignature is the whole key usage.
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension(usages),
  ];
  const sans: x509.JsonGeneralName[] = [
    ...names.dnsNames.map((value): x509.JsonGeneralName => ({ type: 'dns', value })),
    ...names.ipAddresses.map((value): x509.JsonGeneralName => ({ type: 'ip', value })),
    ...(names.spiffeId ? [{ type: 'url', value: names.spiffeId } satisfies x509.JsonGeneralName] : []),
  ];
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans));
  return extensions;
}

/** A leaf's SPIFFE id must sit in its issuer's trust domain, or SPIFFE-aware peers will reject it. */
export function requireIssuerTrustDomain(issuer: CertificateIssuer, trustDomain: string): void {
  const issuerDomain = trustDomainOf(issuer.certPem);
  if (issuerDomain !== undefined && issuerDomain !== trustDomain) {
    throw new PkiError(
      'TRUST_DOMAIN_MISMATCH',
      `trust domain "${trustDomain}" differs from the issuer's trust domain "${issuerDomain}"`,
    );
  }
}
