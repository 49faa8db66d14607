// The two certificate requests a router sends at enrollment (client and server certificate), both for the same key,
// with the `edge.csr` subject fields (C, ST, L, O, OU; CN = the router id) and SANs (dns, ip, email, uri).

import { webcrypto } from 'node:crypto';
import { loadSigningKey } from '../../common/pki/key-pair.ts';
import { ecdsaP256, ecdsaWithSha256, x509 } from '../../common/pki/x509-runtime.ts';
import type { CsrConfig } from '../config/router-config.ts';

export function subjectOf(routerId: string, csr: CsrConfig): x509.JsonName {
  const name: x509.JsonName = [];
  if (csr.country) name.push({ C: [csr.country] });
  if (csr.province) name.push({ ST: [csr.province] });
  if (csr.locality) name.push({ L: [csr.locality] });
  if (csr.organization) name.push({ O: [csr.organization] });
  if (csr.organizationalUnit) name.push({ OU: [csr.organizationalUnit] });
  name.push({ CN: [routerId] });
  return name;
}

export function subjectAltNamesOf(csr: CsrConfig): x509.JsonGeneralNames {
  return [
    ...csr.sans.dns.map((value) => ({ type: 'dns' as const, value })),
    ...csr.sans.ip.map((value) => ({ type: 'ip' as const, value })),
    ...csr.sans.email.map((value) => ({ type: 'email' as const, value })),
    ...csr.sans.uri.map((value) => ({ type: 'url' as const, value })),
  ];
}

/** A PEM certificate request for the PEM private key (ECDSA P-256). */
export async function createCertificateRequest(keyPem: string, routerId: string, csr: CsrConfig): Promise<string> {
  const signing = await loadSigningKey(keyPem, 'identity.key');
  const publicKey = await webcrypto.subtle.importKey('spki', signing.publicKeyDer, ecdsaP256, true, ['verify']);
  const sans = subjectAltNamesOf(csr);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subjectOf(routerId, csr),
    keys: { privateKey: signing.privateKey, publicKey } as CryptoKeyPair,
    signingAlgorithm: ecdsaWithSha256,
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return `${request.toString('pem').trim()}\n`;
}
