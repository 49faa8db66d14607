// What an operator wants to know about a certificate, read from its PEM: for `pki show` and diagnostics.
import { fingerprintOf, spiffeIdOf, trustDomainOf } from './spiffe-id.ts';
import { certificateToPem, parseCertificates, x509 } from './x509-runtime.ts';

export interface CertificateDetails {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** "DNS:x", "IP:x", "URI:x", in certificate order. */
  subjectAltNames: string[];
  spiffeId: string | undefined;
  trustDomain: string | undefined;
  fingerprint: string;
  isCa: boolean;
  pathLength: number | undefined;
  extendedKeyUsages: string[];
}

const sanPrefixes: Record<string, string> = { dns: 'DNS', ip: 'IP', url: 'URI', email: 'email', dn: 'DirName' };
const usageNames: Record<string, string> = {
  [x509.ExtendedKeyUsage.serverAuth]: 'serverAuth',
  [x509.ExtendedKeyUsage.clientAuth]: 'clientAuth',
};

/** Details of every certificate in the PEM text, leaf first when it is a chain. */
export function describeCertificates(pem: string, what = 'certificate'): CertificateDetails[] {
  return parseCertificates(pem, what).map((certificate) => describe(certificate));
}

function describe(certificate: x509.X509Certificate): CertificateDetails {
  const pem = certificateToPem(certificate);
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  const constraints = certificate.getExtension(x509.BasicConstraintsExtension);
  const extendedKeyUsage = certificate.getExtension(x509.ExtendedKeyUsageExtension);
  const spiffeId = spiffeIdOf(pem);
  return {
    subject: certificate.subject,
    issuer: certificate.issuer,
    serialNumber: certificate.serialNumber,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    subjectAltNames: (san?.names.items ?? []).map((name) => `${sanPrefixes[name.type] ?? name.type}:${name.value}`),
    spiffeId: spiffeId && `spiffe://${spiffeId.trustDomain}/${spiffeId.kind}/${spiffeId.id}`,
    trustDomain: trustDomainOf(pem),
    fingerprint: fingerprintOf(pem),
    isCa: constraints?.ca === true,
    pathLength: constraints?.pathLength,
    extendedKeyUsages: (extendedKeyUsage?.usages ?? []).map((usage) => usageNames[String(usage)] ?? String(usage)),
  };
}
