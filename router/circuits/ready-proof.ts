// The egress's proof that it, the route's last router, answered a circuit's setup. `c.ready` carries a signature over
// the circuit id, the digest of the signed route it answers and the byte count it reports (on a re-route), made with
// the key of the certificate the router enrolled with, next to that certificate's chain. The ingress takes the ready
// only when the chain leads to its CA, the certificate is the last router's (its common name and SPIFFE id name it:
// peer-router-certificate.ts), it is the very certificate the controller put in the signed route
// (`egressFingerprint`), and the signature verifies. So a router in the middle of a path cannot answer a setup itself
// and pose as the service's host, nor replay another circuit's ready. Pure but for the chain cache; time is a parameter.
import { createPrivateKey, sign, verify, type KeyObject } from 'node:crypto';
import { signatureDigestFor, SignerChains } from '../../common/certificates/signer-chain.ts';
import { batchRootOf, batchTree, VerifiedRoots, type BatchStep } from '../../common/circuits/route-batch.ts';
import { peerRouterCertificateProblem } from '../links/peer-router-certificate.ts';

export interface ReadyProof {
  /** base64 */
  readonly signature: string;
  /** The egress router's enrolled (client) certificate, then any intermediates (PEM). */
  readonly signer: string;
  /** Present when the signature is over the root of the readies the egress answered in one turn (route-batch.ts):
   * this ready's path to that root. Made only for a route that says `readyBatches` (its ingress takes them). */
  readonly batch?: readonly BatchStep[];
}

/** What one ready covers. */
export interface ReadyStatement {
  readonly circuitId: string;
  readonly routeDigest: string;
  readonly received: number | undefined;
  readonly hostKey?: string | undefined;
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
    const signature = sign(signatureDigestFor(this.key), Buffer.from(readyStatementText(circuitId, routeDigest, received, hostKey)), this.key).toString('base64');
    return { signature, signer: this.certificateChainPem };
  }

  /** Several readies under one signature over their tree's root, each with its path (one ready: signed alone). */
  signBatch(statements: readonly ReadyStatement[]): ReadyProof[] {
    if (statements.length === 1) {
      const [one] = statements as [ReadyStatement];
      return [this.sign(one.circuitId, one.routeDigest, one.received, one.hostKey)];
    }
    const { rootHex, paths } = batchTree(statements.map((one) => readyStatementText(one.circuitId, one.routeDigest, one.received, one.hostKey)));
    const signature = sign(signatureDigestFor(this.key), readyBatchStatement(rootHex), this.key).toString('base64');
    return paths.map((batch) => ({ signature, signer: this.certificateChainPem, batch }));
  }
}

export class ReadyVerifier {
  private readonly signers: SignerChains;
  /** Batch roots already verified: the other readies of a batch cost two hashes each, not a signature check. */
  private readonly verifiedRoots = new VerifiedRoots();

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
    const text = readyStatementText(expected.circuitId, expected.routeDigest, expected.received, expected.hostKey);
    let statement: Buffer = Buffer.from(text);
    let rootHex: string | undefined;
    if (proof.batch !== undefined) {
      rootHex = batchRootOf(text, proof.batch);
      if (rootHex === undefined) return `the ready of router ${expected.egressRouterId} carries a malformed batch path`;
      if (this.verifiedRoots.has(signer.certificate.fingerprint256, rootHex)) return undefined;
      statement = readyBatchStatement(rootHex);
    }
    let valid = false;
    try {
      valid = verify(signatureDigestFor(signer.key), statement, signer.key, Buffer.from(proof.signature, 'base64'));
    } catch {
      valid = false;
    }
    if (valid && rootHex !== undefined) this.verifiedRoots.add(signer.certificate.fingerprint256, rootHex);
    return valid ? undefined : `the ready signature of router ${expected.egressRouterId} does not verify for this circuit and route`;
  }
}

/** The proof when `value` has its shape (sizes bounded), else undefined. */
export function readReadyProof(value: unknown): ReadyProof | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { signature, signer } = value as Record<string, unknown>;
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > 4096) return undefined;
  if (typeof signer !== 'string' || signer.length === 0 || signer.length > 64 * 1024) return undefined;
  const { batch } = value as Record<string, unknown>;
  if (batch === undefined) return { signature, signer };
  // Its steps are checked where the root is computed (batchRootOf); here only its size is bounded.
  if (!Array.isArray(batch) || batch.length > 16 || !batch.every((step) => typeof step === 'string' && step.length <= 65)) return undefined;
  return { signature, signer, batch: batch as string[] };
}

/** What a ready signs: v1 without a host key (as routers before end-to-end encryption sign it), v2 with one. */
function readyStatementText(circuitId: string, routeDigest: string, received: number | undefined, hostKey?: string): string {
  const base = `${circuitId}\n${routeDigest}\n${received === undefined ? '-' : String(received)}`;
  return hostKey === undefined ? `edgeward c.ready v1\n${base}` : `edgeward c.ready v2\n${base}\n${hostKey}`;
}

/** What the egress signs for a batch of readies: its root, named as a ready batch's (no route's root passes for it). */
function readyBatchStatement(rootHex: string): Buffer {
  return Buffer.from(`edgeward c.ready batch v1\n${rootHex}`);
}
