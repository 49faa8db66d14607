// The frames circuits send over links (besides the bytes themselves, which are data frames: common/framing). Each
// names its circuit; the forwarder acts on a frame only when it came over a link that is one of that circuit's
// sides, so a router off the path cannot inject into, ack, or close another router's circuit. Pure.
import { circuitIdPattern, isPublicKeyText } from '../../common/circuits/circuit-route.ts';
import { readReadyProof, type ReadyProof } from './ready-proof.ts';

/** Ingress → egress, hop by hop: build the circuit. `hop` is the receiving router's index in the route's routers. */
export interface SetupFrame {
  readonly type: 'c.setup';
  readonly circuitId: string;
  readonly route: unknown;
  readonly hop: number;
  /** A new path for a live circuit: the bytes the ingress has received so far (the egress sends the rest again). */
  readonly resume?: number;
}
/** Egress → ingress: the terminator's address answered (or a re-routed circuit's egress took the new path); bytes may
 * flow. `received`: on a re-route, the bytes the egress has received so far. `proof`: the egress's signature over
 * the circuit, the route and `received` (ready-proof.ts); the ingress refuses a ready without a valid one. */
export interface ReadyFrame {
  readonly type: 'c.ready';
  readonly circuitId: string;
  readonly received?: number;
  readonly proof?: ReadyProof;
  /** The hosting side's end-to-end encryption public key (base64), when the route carries the dialer's; signed. */
  readonly hostKey?: string;
}
/** Toward the ingress: the circuit could not be built; `avoid`: a router the next attempt should route around. */
export interface FailFrame {
  readonly type: 'c.fail';
  readonly circuitId: string;
  readonly reason: string;
  readonly avoid?: string;
}
/** Toward a sending end: its far end's socket has taken `bytes` in all (cumulative flow control credit). Travels on
 * the ack connection. */
export interface AckFrame {
  readonly type: 'c.ack';
  readonly circuitId: string;
  readonly bytes: number;
}
/** Half-close: the sending end's connection ended; in order behind its bytes. */
export interface FinFrame {
  readonly type: 'c.fin';
  readonly circuitId: string;
}
/** Either way: the circuit is over. `graceful`: both ends finished (let sockets flush); otherwise reset them. */
export interface CloseFrame {
  readonly type: 'c.close';
  readonly circuitId: string;
  readonly graceful: boolean;
  readonly reason: string;
  /** A link of the path was lost: the ends keep their connections and the ingress looks for another path. */
  readonly reroute?: boolean;
}
/** One hop: is this circuit still routed at your end? (idle circuits); answered with `c.confirmed` or a close. */
export interface ConfirmFrame {
  readonly type: 'c.confirm' | 'c.confirmed';
  readonly circuitId: string;
}

export type CircuitFrame = SetupFrame | ReadyFrame | FailFrame | AckFrame | FinFrame | CloseFrame | ConfirmFrame;

const maxReasonLength = 1024;

/** A byte count: a non-negative safe integer. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The frame when it is a well-formed circuit frame, else undefined (dropped: a link peer's mistake, not ours). */
export function readCircuitFrame(value: unknown): CircuitFrame | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const frame = value as Record<string, unknown>;
  if (typeof frame.circuitId !== 'string' || !circuitIdPattern.test(frame.circuitId)) return undefined;
  const circuitId = frame.circuitId;
  switch (frame.type) {
    case 'c.setup':
      if (!(Number.isInteger(frame.hop) && (frame.hop as number) >= 1 && (frame.hop as number) < 64)) return undefined;
      return { type: 'c.setup', circuitId, route: frame.route, hop: frame.hop as number, ...(count(frame.resume) !== undefined ? { resume: count(frame.resume)! } : {}) };
    case 'c.ready': {
      const proof = readReadyProof(frame.proof);
      return {
        type: 'c.ready',
        circuitId,
        ...(count(frame.received) !== undefined ? { received: count(frame.received)! } : {}),
        ...(proof ? { proof } : {}),
        ...(isPublicKeyText(frame.hostKey) ? { hostKey: frame.hostKey } : {}),
      };
    }
    case 'c.fail':
      return {
        type: 'c.fail',
        circuitId,
        reason: typeof frame.reason === 'string' ? frame.reason.slice(0, maxReasonLength) : 'unknown',
        ...(typeof frame.avoid === 'string' && frame.avoid.length <= 512 ? { avoid: frame.avoid } : {}),
      };
    case 'c.ack':
      return typeof frame.bytes === 'number' && Number.isSafeInteger(frame.bytes) && frame.bytes > 0 ? { type: 'c.ack', circuitId, bytes: frame.bytes } : undefined;
    case 'c.fin':
      return { type: 'c.fin', circuitId };
    case 'c.close':
      return {
        type: 'c.close',
        circuitId,
        graceful: frame.graceful === true,
        reason: typeof frame.reason === 'string' ? frame.reason.slice(0, maxReasonLength) : 'closed',
        ...(frame.reroute === true && frame.graceful !== true ? { reroute: true } : {}),
      };
    case 'c.confirm':
    case 'c.confirmed':
      return { type: frame.type, circuitId };
    default:
      return undefined;
  }
}
