// A router's control connection on the controller's thread when the raft thread accepted it: the control port is
// the raft thread's (it carries the peer channels), and a socket cannot move between threads, so its bytes do.
// Reads arrive as `socketData`; writes, end and destroy go back as messages. What the router channel reads of the
// TLS session (the peer certificate's common name and DER, the remote address) comes with `socketOpen`.
import { Duplex } from 'node:stream';
import type { ControlSocket } from '../../control-port/control-socket.ts';
import type { FromPeerThread, ToPeerThread } from './worker-protocol.ts';

type Opened = Extract<FromPeerThread, { type: 'socketOpen' }>;

export class ProxiedSocket extends Duplex implements ControlSocket {
  readonly sid: number;
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  private readonly certificate: { readonly subject?: { readonly CN?: string }; readonly raw?: Buffer };
  private remoteClosed = false;

  constructor(
    opened: Opened,
    private readonly send: (message: ToPeerThread) => void,
  ) {
    super({ allowHalfOpen: false });
    this.sid = opened.sid;
    this.remoteAddress = opened.remoteAddress;
    this.remotePort = opened.remotePort;
    this.certificate = {
      ...(opened.commonName !== undefined ? { subject: { CN: opened.commonName } } : {}),
      ...(opened.raw ? { raw: Buffer.from(opened.raw) } : {}),
    };
  }

  setNoDelay(): this {
    // The raft thread set it on the real socket.
    return this;
  }

  getPeerCertificate(): { readonly subject?: { readonly CN?: string }; readonly raw?: Buffer } {
    return this.certificate;
  }

  /** Bytes the router sent. */
  received(chunk: Uint8Array): void {
    this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  /** The real socket closed (with the error that closed it, if one did). */
  remoteClose(error?: string): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.push(null);
    this.destroy(error ? new Error(error) : undefined);
  }

  override _read(): void {
    // Data is pushed as it arrives; the router channel never pauses.
  }

  /** Done once the bytes are posted: the real socket's own buffer on the raft thread is what holds them (a router's
   * control frames are small: hellos, model pushes, heartbeats). */
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.remoteClosed) this.send({ type: 'socketWrite', sid: this.sid, chunk });
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.remoteClosed) this.send({ type: 'socketEnd', sid: this.sid });
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.remoteClosed) this.send({ type: 'socketDestroy', sid: this.sid });
    this.remoteClosed = true;
    callback(error);
  }
}
