// What the control port allows before it knows who is connecting (`ctrl.options`): every connection there, a
// controller's or a router's, must finish its TLS handshake, then send a small first frame (its hello) in time, and
// no address may hold more than so many connections at once. A healthy cluster never meets them: a controller opens
// one channel to each peer (and a short-lived one per `cluster add` probe), a router one control channel to each
// controller, each from its own address (all of them share 127.0.0.1 in the test fixtures).
import { defaultMaxHelloBytes } from '../../common/framing/frame-limits.ts';

export interface ControlPortLimits {
  /** From TCP accept to the end of the TLS handshake (`handshakeTimeout`). */
  readonly handshakeTimeoutMs: number;
  /** From the end of the handshake to a whole first frame, the hello (`helloTimeout`). */
  readonly helloTimeoutMs: number;
  /** The first frame's size (`maxHelloBytes`); the normal frame limits apply after it. */
  readonly maxHelloBytes: number;
  /** Open connections from one IP address, handshakes included (`maxConnectionsPerSource`). */
  readonly maxConnectionsPerSource: number;
}

export const defaultControlPortLimits: ControlPortLimits = {
  handshakeTimeoutMs: 10_000,
  helloTimeoutMs: 10_000,
  maxHelloBytes: defaultMaxHelloBytes,
  maxConnectionsPerSource: 128,
};
