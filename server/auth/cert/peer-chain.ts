// The certificates a TLS client presented, as DER, leaf first.
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

// Far above any real chain; only guards against a malformed issuer graph.
const MAX_CERTIFICATES = 16;

/**
 * Leaf first, then its issuers as Node linked them; empty when the client sent no certificate.
 *
 * Observed on Node 20.20 / OpenSSL 3 (pinned by peer-chain.test.ts):
 * - Node links the certificates the client sent in one forward pass: an intermediate sent before its own
 *   subject is lost (sending leaf, intermediate, sub-intermediate yields leaf, sub-intermediate), and certificates
 *   that link to nothing are dropped.
 * - Node appends issuers it finds in the server's own `ca` store (leaf+intermediate sent, root in `ca`:
 *   leaf, intermediate, root). The chain verifier treats everything after the leaf as untrusted, so that is fine.
 * - On a resumed TLS session only the leaf is left: the intermediates are not kept in the session. A listener
 *   that accepts certificates from intermediate CAs should set SSL_OP_NO_TICKET (Node keeps no server session
 *   cache otherwise), or trust the intermediate itself as an anchor.
 */
export function peerChain(socket: TLSSocket): Buffer[] {
  const leaf = socket.getPeerCertificate(true) as DetailedPeerCertificate | null | undefined;
  // No certificate gives `{}` (or null on a closed socket): no `raw` either way.
  if (!leaf?.raw) return [];
  const chain: Buffer[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  for (let current: DetailedPeerCertificate | undefined = leaf; current?.raw; current = current.issuerCertificate) {
    // A self-signed certificate is its own issuerCertificate: that is where Node's chain ends.
    if (seen.has(current) || chain.at(-1)?.equals(current.raw) || chain.length >= MAX_CERTIFICATES) break;
    seen.add(current);
    chain.push(current.raw);
  }
  return chain;
}
