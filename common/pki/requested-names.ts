// The subject alternative names a PKCS#10 request asks for (its extensionRequest attribute): the DNS names and IP
// addresses a router wants on its server certificate. Other name types are not ours to grant and are left out.
import { PkiError } from './pki-error.ts';
import { x509 } from './x509-runtime.ts';

export interface RequestedNames {
  readonly dnsNames: string[];
  readonly ipAddresses: string[];
}

export function requestedSubjectAltNames(csrPem: string): RequestedNames {
  let request: x509.Pkcs10CertificateRequest;
  try {
    const block = x509.PemConverter.decodeWithHeaders(csrPem).find((pem) => /^(NEW )?CERTIFICATE REQUEST$/.test(pem.type));
    if (!block) throw new Error('no CERTIFICATE REQUEST block');
    request = new x509.Pkcs10CertificateRequest(block.rawData);
  } catch (cause) {
    throw new PkiError('INVALID_CSR', 'the certificate request could not be parsed as PKCS#10', { cause });
  }
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const extension of request.extensions) {
    if (extension.type !== '2.5.29.17') continue;
    const san = extension instanceof x509.SubjectAlternativeNameExtension ? extension : new x509.SubjectAlternativeNameExtension(extension.rawData);
    for (const name of san.names.items) {
      if (name.type === 'dns') dnsNames.push(name.value);
      else if (name.type === 'ip') ipAddresses.push(name.value);
    }
  }
  return { dnsNames, ipAddresses };
}
