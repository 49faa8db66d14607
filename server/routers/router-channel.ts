// One router's control channel on the controller side: a TLS socket (chain already verified) carrying
// length-prefixed JSON frames over the common framed connection (common/channel/framed-connection.ts). It reads the
// presented certificate, hands every frame to its owner (the hello first), heartbeats the router once welcomed
// (answering its heartbeats and measuring the round trip from then on), and closes when the peer is silent too long or never says hello. Frames
// are held to routerFrameLimits; the first one was already held to the control port's hello limits
// (server/control-port/pre-hello-guard.ts).
import type { ControllerToRouter, RouterHello } from '../../common/control-channel/control-messages.ts';
import { jsonFrameCodec } from '../../common/channel/channel-codec.ts';
import { FramedConnection } from '../../common/channel/framed-connection.ts';
import { routerFrameLimits } from '../../common/framing/frame-limits.ts';
import { certificateFingerprint } from '../auth/cert/certificate-fingerprint.ts';
import type { ControlSocket } from '../control-port/control-socket.ts';
import type { PresentedCertificate } from './router-admission.ts';

export type { ControlSocket };

export interface RouterChannelTiming {
  /** How often the controller sends `hb` (10 s). */
  readonly heartbeatIntervalMs: number;
  /** A channel that has sent nothing for this long is closed (30 s). */
  readonly unresponsiveMs: number;
  /** How long a new connection may take to send `router.hello` and be admitted (10 s; `ctrl.options.helloTimeout`). */
  readonly helloTimeoutMs: number;
}

export const defaultRouterChannelTiming: RouterChannelTiming = { heartbeatIntervalMs: 10_000, unresponsiveMs: 30_000, helloTimeoutMs: 10_000 };

export interface RouterChannelOwner {
  frame(channel: RouterChannel, frame: unknown): void;
  closed(channel: RouterChannel, reason: string): void;
  /** The round trip of one of the controller's heartbeats to this router, in ms. */
  roundTrip(channel: RouterChannel, ms: number): void;
}


const routerCodec = jsonFrameCodec({ limits: routerFrameLimits });

export class RouterChannel {
  /** Set once the router is admitted. */
  hello: RouterHello | undefined;
  /** Set once `ctrl.welcome` has gone out (`welcome()`): from then on the channel hears broadcasts and heartbeats. */
  welcomed = false;
  connectedAt = 0;
  closed = false;
  /** Refused or told to go: what it still sends is ignored while the refusal is flushed. */
  ending = false;
  readonly certificate: PresentedCertificate;
  readonly remote: string;
  private readonly connection: FramedConnection;
  private readonly helloTimer: NodeJS.Timeout;
  private readonly timing: RouterChannelTiming;

  constructor(
    readonly socket: ControlSocket,
    private readonly owner: RouterChannelOwner,
    timing: RouterChannelTiming,
  ) {
    socket.setNoDelay(true);
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const presented = socket.getPeerCertificate(false);
    const commonName = presented?.subject?.CN;
    this.certificate = {
      commonName: Array.isArray(commonName) ? commonName[0] : commonName || undefined,
      fingerprint: presented?.raw ? certificateFingerprint(presented.raw) : '',
    };
    // The turn's frames to the router (circuit answers, revocations, model changes) leave in one write, and the whole
    // edge model (0.8 MB at 5,000 routers) in 64 KiB slices: see FramedConnectionOptions.gatherTurns and paceOver.
    this.connection = new FramedConnection(socket, { codec: routerCodec, gatherTurns: true, paceOver: 64 * 1024 });
    this.connection.onFrame((frame) => {
      if (!this.closed && !this.ending) this.owner.frame(this, frame);
    });
    this.connection.onClose((reason) => this.ended(reason));
    this.timing = timing;
    this.helloTimer = setTimeout(() => {
      if (!this.hello) this.close(`no router.hello within ${timing.helloTimeoutMs} ms`);
    }, timing.helloTimeoutMs);
    this.helloTimer.unref();
  }

  /** The router is admitted and `ctrl.welcome` went out: heartbeats start (before it, the hello must come first and
   * the hello timeout bounds the wait). */
  welcome(): void {
    if (this.welcomed) return;
    this.welcomed = true;
    const { heartbeatIntervalMs, unresponsiveMs } = this.timing;
    const checkIntervalMs = Math.max(10, Math.min(1000, Math.floor(unresponsiveMs / 4)));
    this.connection.startHeartbeat({ sendIntervalMs: heartbeatIntervalMs, checkIntervalMs, unresponsiveMs }, { roundTrip: (ms) => this.owner.roundTrip(this, ms) });
  }

  send(frame: ControllerToRouter): void {
    if (!this.closed) this.connection.send(frame);
  }

  /** A frame already encoded (one message for many routers is encoded once). */
  sendEncoded(bytes: Buffer): void {
    if (!this.closed) this.connection.sendEncoded(bytes);
  }

  /** Bytes written to the channel that its socket has not yet handed to the kernel. */
  get pendingBytes(): number {
    return this.connection.pendingBytes;
  }

  /** Resolves once the socket has taken what was written (or the channel closed), or after `timeoutMs` at most. */
  drained(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      void this.connection.drained().then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Says why (`ctrl.refused`, `revoked` when the router was disabled or deleted) and closes once that frame is written. */
  refuse(reason: string, revoked = false): void {
    if (this.closed || this.ending) return;
    this.send({ type: 'ctrl.refused', reason, ...(revoked ? { revoked: true } : {}) });
    this.ending = true;
    this.connection.endAfterFlush(reason);
  }

  close(reason: string): void {
    this.connection.close(reason);
  }

  private ended(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.helloTimer);
    this.socket.destroy();
    this.owner.closed(this, reason);
  }
}
