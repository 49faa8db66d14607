// The egress's proof that it, the route's last router, answered a circuit's setup. `c.ready` carries a signature over
// the circuit id, the digest of the signed route it answers and the byte count it reports (on a re-route), made with
// the key of the certificate the router enrolled with, next to that certificate's chain. The ingress takes the ready
// only when the chain leads to its CA, the certificate is the last router's (its common name and SPIFFE id name it:
// peer-router-certificate.ts), it is the very certificate the controller put in the signed route
// (`egressFingerprint`), and the signature verifies. So a router in the middle of a path cannot answer a setup itself
// and pose as the service's host, nor replay another circuit's ready. Pure but for the chain cache; time is a parameter.
import { createPrivateKey, sign, verify, type KeyObject } from 'node:crypto';
import { signatureDigestFor, SignerChains } from '../../common/certificates/signer-chain.ts';
import { peerRouterCertificateProblem } from '../links/peer-router-certificate.ts';

export interface ReadyProof {
  /** base64 */
  readonly signature: string;
  /** The egress router's enrolled (client) certificate, then any intermediates (PEM). */
  readonly signer: string;
}

/** What the ingress expects the proof to cover and who must have made it. */
export interface ExpectedReady {
  readonly circuitId: string;
  readonly routeDigest: string;
  readonly received: number | undefined;
  /** The host's end-to-end encryption key the ready carries (covered by the signature), if any. */
  readonly hostKey?: string | undefined;
  /** The route's last router. */
  readonly egressRouterId: string;
  /** The route's `egressFingerprint`. */
  readonly egressFingerprint: string;
}

export class ReadySigner {
  private readonly key: KeyObject;

  constructor(
    keyPem: string,
    private readonly certificateChainPem: string,
  ) {
    this.key = createPrivateKey(keyPem);
  }

  sign(circuitId: string, routeDigest: string, received: number | undefined, hostKey?: string): ReadyProof {
    const signature = sign(signatureDigestFor(this.key), readyStatement(circuitId, routeDigest, received, hostKey), this.key).toString('base64');
    return { signature, signer: this.certificateChainPem };
  }
}

export class ReadyVerifier {
  private readonly signers: SignerChains;

  constructor(
    caPem: string,
    /** identity.ca's trust domains (empty: it declares none). */
    private readonly trustDomains: readonly string[],
  ) {
    this.signers = new SignerChains(caPem, 'the ready signer');
  }

  /** Why the proof is not the expected egress's, or undefined when it is. */
  problem(proof: ReadyProof | undefined, expected: ExpectedReady, nowMs: number): string | undefined {
    if (proof === undefined) return `the ready is not signed (router ${expected.egressRouterId} must sign it)`;
    const signer = this.signers.signerOf(proof.signer, nowMs);
    if (!signer.ok) return signer.reason;
    const notEgress = peerRouterCertificateProblem(signer.certificate, {
      routerId: expected.egressRouterId,
      fingerprint: expected.egressFingerprint,
      trustDomains: this.trustDomains,
      role: 'client',
    });
    if (notEgress) return `the ready signer is not router ${expected.egressRouterId}: ${notEgress}`;
    let valid = false;
    try {
      valid = verify(signatureDigestFor(signer.key), readyStatement(expected.circuitId, expected.routeDigest, expected.received, expected.hostKey), signer.key, Buffer.from(proof.signature, 'base64'));
    } catch {
      valid = false;
    }
    return valid ? undefined : `the ready signature of router ${expected.egressRouterId} does not verify for this circuit and route`;
  }
}

/** The proof when `value` has its shape (sizes bounded), else undefined. */
export function readReadyProof(value: unknown): ReadyProof | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { signature, signer } = value as Record<string, unknown>;
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > 4096) return undefined;
  if (typeof signer !== 'string' || signer.length === 0 || signer.length > 64 * 1024) return undefined;
  return { signature, signer };
}

/** What a ready signs: v1 without a host key (as routers before end-to-end encryption sign it), v2 with one. */
function readyStatement(circuitId: string, routeDigest: string, received: number | undefined, hostKey?: string): Buffer {
  const base = `${circuitId}\n${routeDigest}\n${received === undefined ? '-' : String(received)}`;
  return Buffer.from(hostKey === undefined ? `edgeward c.ready v1\n${base}` : `edgeward c.ready v2\n${base}\n${hostKey}`);
}
