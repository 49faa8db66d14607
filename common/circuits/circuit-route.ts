// A circuit's route: what the controller decided for one connection (service, terminator, the routers and links in
// between) and what every router on the path acts on. The controller signs the route's text with its control
// certificate's key; the ingress router carries it hop by hop in the circuit's setup frame, and each router checks
// the signature, that the signer is a controller of its network, and that it is on the path where the frame came
// from, before it forwards a byte or dials anything. A route is used once: the egress refuses a second setup of the
// same route (router/circuits/terminated-routes.ts). So a router can only ever build circuits a controller allowed:
// a link peer cannot make another router dial its hosted services by inventing a setup.

import { createHash, createPrivateKey, sign, verify, type KeyObject, type X509Certificate } from 'node:crypto';
import { signatureDigestFor, SignerChains } from '../certificates/signer-chain.ts';
import { batchRootOf, batchStatement, batchTree, VerifiedRoots, type BatchStep } from './route-batch.ts';

export interface CircuitRoute {
  readonly circuitId: string;
  readonly serviceId: string;
  readonly serviceName: string;
  /** The identity the circuit was dialed for (a tunneling router's own identity: its id). */
  readonly identityId: string;
  /** Router ids from the ingress router to the one hosting the terminator. */
  readonly routers: readonly string[];
  /** links[i] joins routers[i] and routers[i + 1]. */
  readonly links: readonly string[];
  /** `binding`: `tunnel` for a router-registered terminator (dialed only at what the router hosts), `transport` for an
   * administrator's (dialed at its address when the router has a transport dialer); see terminator-address.ts. */
  readonly terminator: { readonly id: string; readonly routerId: string; readonly address: string; readonly binding?: string };
  /** The controller that signed it: a current member of the cluster, whose certificate's SPIFFE id names it. */
  readonly controllerId: string;
  /** SHA-1 (lowercase hex) of the certificate the terminator's router enrolled with: its `c.ready` is signed with
   * that certificate's key, and the ingress checks it against this. */
  readonly egressFingerprint: string;
  /** Unix ms when the controller issued it: a setup older than routeSetupWindowMs is refused. */
  readonly issuedAt: number;
  /**
   * An SDK dialer's end-to-end encryption key (its X25519 public key, base64, from its Connect): the hosting side
   * answers with its own in `c.ready`. Signed with the route, so no router of the path can swap it.
   */
  readonly dialerKey?: string;
  /** Set when the ingress said `routeBatches`: it takes `c.ready`s signed in batches, so the egress may batch them. */
  readonly readyBatches?: true;
}

/** The route as it travels: its exact text, the signature over that text and the signer's certificate chain. */
export interface SignedRoute {
  readonly text: string;
  /** base64 */
  readonly signature: string;
  /** The controller's certificate, then any intermediates (PEM). */
  readonly signer: string;
  /**
   * Present when the signature is over the root of a batch of routes (route-batch.ts): this route's path to that
   * root. Sent only to routers whose hello said `routeBatches`; an older router refuses such a route.
   */
  readonly batch?: readonly BatchStep[];
}

/** How old a route may be when a router sets it up (generous: routers' and controllers' clocks differ). */
export const routeSetupWindowMs = 5 * 60_000;

export const circuitIdPattern = /^[A-Za-z0-9_-]{8,64}$/;

export class RouteSigner {
  private readonly key: KeyObject;

  constructor(
    keyPem: string,
    private readonly certificateChainPem: string,
  ) {
    this.key = createPrivateKey(keyPem);
  }

  sign(route: CircuitRoute): SignedRoute {
    const text = JSON.stringify(route);
    return { text, signature: sign(signatureDigestFor(this.key), Buffer.from(text), this.key).toString('base64'), signer: this.certificateChainPem };
  }

  /** Several routes under one signature over their tree's root, each with its path (one route: signed alone). */
  signBatch(routes: readonly CircuitRoute[]): SignedRoute[] {
    if (routes.length === 1) return [this.sign(routes[0]!)];
    const texts = routes.map((route) => JSON.stringify(route));
    const { rootHex, paths } = batchTree(texts);
    const signature = sign(signatureDigestFor(this.key), batchStatement(rootHex), this.key).toString('base64');
    return texts.map((text, index) => ({ text, signature, signer: this.certificateChainPem, batch: paths[index]! }));
  }
}

export type RouteVerdict = { readonly ok: true; readonly route: CircuitRoute; readonly signer: X509Certificate } | { readonly ok: false; readonly reason: string };

/**
 * Checks a signed route: the signer chains to `trusted` (the router's CA bundle) and is valid now, the signature is
 * the signer's over the text, and the text is a well-formed route. Whether the signer is a controller (not some other
 * certificate of the CA), and a current member named by the route, is the caller's check.
 */
export class RouteVerifier {
  private readonly signers: SignerChains;
  /** Batch roots already verified: the other routes of a batch cost two hashes each, not a signature check. */
  private readonly verifiedRoots = new VerifiedRoots();

  constructor(caPem: string) {
    this.signers = new SignerChains(caPem, 'the route signer');
  }

  /**
   * `deliveredBy`: the certificate of the controller whose TLS channel (authenticated by that certificate's key)
   * delivered the route, when it came straight from a controller (the ingress's `circuit.create` answer). A route
   * whose signer is that very certificate is that controller's text already, so its signature is not checked again
   * here (the routers after the ingress, which get it over links, check it); any other signer's is.
   */
  verify(signed: unknown, nowMs: number, deliveredBy?: X509Certificate): RouteVerdict {
    if (!isSignedRoute(signed)) return { ok: false, reason: 'the route is not a signed route' };
    const signer = this.signers.signerOf(signed.signer, nowMs);
    if (!signer.ok) return signer;
    if (deliveredBy === undefined || deliveredBy.fingerprint256 !== signer.certificate.fingerprint256) {
      const problem = signed.batch === undefined ? this.signatureProblem(signer.key, Buffer.from(signed.text), signed.signature) : this.batchProblem(signed, signer.certificate.fingerprint256, signer.key);
      if (problem) return { ok: false, reason: problem };
    }
    let route: unknown;
    try {
      route = JSON.parse(signed.text);
    } catch {
      return { ok: false, reason: 'the route is not JSON' };
    }
    const problem = routeProblem(route);
    if (problem) return { ok: false, reason: `the route is malformed: ${problem}` };
    return { ok: true, route: route as CircuitRoute, signer: signer.certificate };
  }

  private signatureProblem(key: KeyObject, statement: Buffer, signature: string): string | undefined {
    let valid = false;
    try {
      valid = verify(signatureDigestFor(key), statement, key, Buffer.from(signature, 'base64'));
    } catch {
      valid = false;
    }
    return valid ? undefined : 'the route signature does not verify';
  }

  /** The route's path leads to a root, and the signature is the signer's over that root (checked once per root). */
  private batchProblem(signed: SignedRoute, signerFingerprint: string, key: KeyObject): string | undefined {
    const rootHex = batchRootOf(signed.text, signed.batch);
    if (rootHex === undefined) return 'the route\'s batch path is malformed';
    if (this.verifiedRoots.has(signerFingerprint, rootHex)) return undefined;
    const problem = this.signatureProblem(key, batchStatement(rootHex), signed.signature);
    if (!problem) this.verifiedRoots.add(signerFingerprint, rootHex);
    return problem;
  }
}

/** The route's identity for single use and for `c.ready`: SHA-256 of its signed text (hex). */
export function routeDigest(signed: SignedRoute): string {
  return createHash('sha256').update(signed.text).digest('hex');
}

function isSignedRoute(value: unknown): value is SignedRoute {
  if (typeof value !== 'object' || value === null) return false;
  const { text, signature, signer } = value as Record<string, unknown>;
  return typeof text === 'string' && text.length <= 64 * 1024 && typeof signature === 'string' && signature.length <= 4096 && typeof signer === 'string' && signer.length <= 64 * 1024;
}

/** An X25519 public key as routes and ready frames carry it: 32 bytes, base64. */
export function isPublicKeyText(value: unknown): value is string {
  return typeof value === 'string' && value.length === 44 && Buffer.from(value, 'base64').length === 32 && Buffer.from(value, 'base64').toString('base64') === value;
}

/** What is wrong with a parsed route, or undefined when it is well formed. */
export function routeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const route = value as Record<string, unknown>;
  const text = (key: string) => typeof route[key] === 'string' && (route[key] as string).length > 0 && (route[key] as string).length <= 512;
  if (typeof route.circuitId !== 'string' || !circuitIdPattern.test(route.circuitId)) return 'circuitId';
  for (const key of ['serviceId', 'serviceName', 'identityId', 'controllerId']) if (!text(key)) return key;
  const routers = route.routers;
  const links = route.links;
  if (!Array.isArray(routers) || routers.length === 0 || routers.length > 64 || !routers.every((id) => typeof id === 'string' && id.length > 0)) return 'routers';
  if (new Set(routers).size !== routers.length) return 'routers (a router twice)';
  if (route.readyBatches !== undefined && route.readyBatches !== true) return 'readyBatches';
  if (!Array.isArray(links) || links.length !== routers.length - 1 || !links.every((id) => typeof id === 'string' && id.length > 0)) return 'links';
  const terminator = route.terminator as Record<string, unknown> | null;
  if (typeof terminator !== 'object' || terminator === null) return 'terminator';
  if (typeof terminator.id !== 'string' || typeof terminator.address !== 'string' || terminator.routerId !== routers[routers.length - 1]) return 'terminator';
  if (typeof route.egressFingerprint !== 'string' || !/^[0-9a-f]{40}$/.test(route.egressFingerprint)) return 'egressFingerprint';
  if (typeof route.issuedAt !== 'number' || !Number.isFinite(route.issuedAt)) return 'issuedAt';
  if (route.dialerKey !== undefined && !isPublicKeyText(route.dialerKey)) return 'dialerKey';
  return undefined;
}
