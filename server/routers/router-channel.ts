// One router's control channel on the controller side: a TLS socket (chain already verified) carrying
// length-prefixed JSON frames. It reads the presented certificate, hands every frame to its owner, sends heartbeats
// on an interval, answers none itself, and closes when the peer is silent too long or never says hello. Frames are
// held to routerFrameLimits; the first one was already held to the control port's hello limits (pre-hello-guard.ts
// in the peer network, which owns the port).
import type { Duplex } from 'node:stream';
import type { ControllerToRouter, RouterHello } from '../../common/control-channel/control-messages.ts';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { routerFrameLimits } from '../../common/framing/frame-limits.ts';
import { certificateFingerprint } from '../auth/cert/certificate-fingerprint.ts';
import type { PresentedCertificate } from './router-admission.ts';

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
}

/** A router's control connection as the channel uses it: a TLS socket, or one the raft thread accepted and relays
 * here (raft/worker/proxied-socket.ts). */
export interface ControlSocket extends Duplex {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  setNoDelay(noDelay?: boolean): this;
  getPeerCertificate(detailed: false): { readonly subject?: { readonly CN?: string | string[] }; readonly raw?: Buffer } | null;
}

export class RouterChannel {
  /** Set once the router is admitted. */
  hello: RouterHello | undefined;
  /** Set once `ctrl.welcome` has gone out: from then on the channel hears broadcasts. */
  welcomed = false;
  connectedAt = 0;
  closed = false;
  /** Refused or told to go: what it still sends is ignored while the refusal is flushed. */
  ending = false;
  readonly certificate: PresentedCertificate;
  readonly remote: string;
  private lastReceived = Date.now();
  /** On the clock heartbeats carry: no echo of this channel's heartbeats is older. */
  private readonly openedAt = performance.now();
  private readonly decoder = new FrameDecoder(undefined, routerFrameLimits);
  private readonly timers: NodeJS.Timeout[] = [];

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
    socket.on('data', (chunk: Buffer) => {
      // Cut off before its hello by the control port, or closed by an earlier frame of this chunk.
      if (this.closed || socket.destroyed) return;
      this.lastReceived = Date.now();
      let frames: unknown[];
      try {
        frames = this.decoder.push(chunk);
      } catch (error) {
        this.close(`bad frame: ${(error as Error).message}`);
        return;
      }
      for (const frame of frames) {
        if (this.closed || this.ending) return;
        this.owner.frame(this, frame);
      }
    });
    socket.on('close', () => this.close('connection closed'));
    socket.on('error', (error) => this.close(error.message));
    const checkEvery = Math.max(10, Math.min(1000, Math.floor(timing.unresponsiveMs / 4)));
    this.timers.push(
      setTimeout(() => {
        if (!this.hello) this.close(`no router.hello within ${timing.helloTimeoutMs} ms`);
      }, timing.helloTimeoutMs),
      setInterval(() => {
        if (this.welcomed) this.send({ type: 'hb', sentAt: performance.now() });
      }, timing.heartbeatIntervalMs),
      setInterval(() => {
        if (Date.now() - this.lastReceived > timing.unresponsiveMs) this.close(`no traffic for ${timing.unresponsiveMs} ms`);
      }, checkEvery),
    );
    for (const timer of this.timers) timer.unref();
  }

  /** The round trip of one of this channel's heartbeats, from the `sentAt` its `hbAck` echoes; undefined when
   * the echo is not one of ours (not a number, from before this channel opened, or from the future). */
  roundTripMs(sentAt: unknown): number | undefined {
    if (typeof sentAt !== 'number' || !Number.isFinite(sentAt) || sentAt < this.openedAt) return undefined;
    const ms = performance.now() - sentAt;
    return ms >= 0 ? ms : undefined;
  }

  send(frame: ControllerToRouter): void {
    if (this.closed) return;
    this.socket.write(encodeFrame(frame));
  }

  /** Says why (`ctrl.refused`, `revoked` when the router was disabled or deleted) and closes once that frame is written. */
  refuse(reason: string, revoked = false): void {
    if (this.closed || this.ending) return;
    this.send({ type: 'ctrl.refused', reason, ...(revoked ? { revoked: true } : {}) });
    this.ending = true;
    this.closeAfterFlush(reason);
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.socket.destroy();
    this.owner.closed(this, reason);
  }

  private closeAfterFlush(reason: string): void {
    // end() flushes what is queued (the refusal) before the FIN; destroy follows if the peer never closes.
    this.socket.end();
    const force = setTimeout(() => this.close(reason), 1000);
    force.unref();
    this.socket.once('close', () => {
      clearTimeout(force);
      this.close(reason);
    });
  }
}
