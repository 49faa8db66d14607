// What a TLS peer's certificate says about who it is, read from Node's X509Certificate: its common name, its SPIFFE
// ids, its SHA-1 fingerprint (OpenZiti's form), and the trust domains a CA bundle declares. No I/O.
import { X509Certificate } from 'node:crypto';
import { isSpiffeUri, parseSpiffeId, trustDomainOfUri, type SpiffeId } from './spiffe-id.ts';

/** The certificate's single common name; undefined when it has none or more than one. */
export function commonNameOf(certificate: X509Certificate): string | undefined {
  const names = certificate.subject
    .split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice(3));
  return names.length === 1 && names[0] !== '' ? names[0] : undefined;
}

/** SHA-1 of the DER certificate, lowercase hex without separators. */
export function fingerprintOf(certificate: X509Certificate): string {
  return certificate.fingerprint.replaceAll(':', '').toLowerCase();
}

/** A fingerprint as operators write it (any case, with or without colons), in fingerprintOf's form. */
export function normaliseFingerprint(text: string): string | undefined {
  const compact = text.trim().replaceAll(':', '').toLowerCase();
  return /^[0-9a-f]{40}$/.test(compact) ? compact : undefined;
}

/** The URI subject alternative names, in certificate order. */
export function uriNamesOf(certificate: X509Certificate): string[] {
  return subjectAltNameEntries(certificate.subjectAltName)
    .filter((entry) => entry.type === 'URI')
    .map((entry) => entry.value);
}

/** How a certificate names its holder in SPIFFE terms. */
export type SpiffeClaim =
  | { readonly kind: 'none' }
  | { readonly kind: 'one'; readonly id: SpiffeId }
  /** More than one SPIFFE URI, or one not of the `<kind>/<id>` form we issue: it names no one we know. */
  | { readonly kind: 'unreadable'; readonly uris: readonly string[] };

export function spiffeClaimOf(certificate: X509Certificate): SpiffeClaim {
  const uris = uriNamesOf(certificate).filter(isSpiffeUri);
  if (uris.length === 0) return { kind: 'none' };
  const id = uris.length === 1 ? parseSpiffeId(uris[0]!) : undefined;
  return id ? { kind: 'one', id } : { kind: 'unreadable', uris };
}

/** Every certificate of a PEM text (a CA bundle); blocks that do not parse are skipped. */
export function certificatesOfPem(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certificates: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      // Not a certificate: trust comes from the blocks that are.
    }
  }
  return certificates;
}

/** The trust domains the bundle's certificates declare (edgeward's CAs carry `spiffe://<trustDomain>`). */
export function trustDomainsOfBundle(caPem: string): string[] {
  const domains = new Set<string>();
  for (const certificate of certificatesOfPem(caPem)) {
    for (const uri of uriNamesOf(certificate)) if (isSpiffeUri(uri)) domains.add(trustDomainOfUri(uri));
  }
  return [...domains];
}

/**
 * Node's subjectAltName text, `DNS:a, IP Address:1.2.3.4, URI:spiffe://x/y/z`, as entries. Node writes a value
 * holding a comma, quote or other special character as a JSON string, so a name cannot forge a second entry.
 */
export function subjectAltNameEntries(text: string | undefined): { type: string; value: string }[] {
  const entries: { type: string; value: string }[] = [];
  const entry = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/gy;
  let match: RegExpExecArray | null;
  while (text && (match = entry.exec(text)) !== null && match[0] !== '') {
    const raw = match[2]!;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        value = raw;
      }
    }
    entries.push({ type: match[1]!, value });
    if (entry.lastIndex >= text.length) break;
  }
  return entries;
}
