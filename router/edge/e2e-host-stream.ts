// A router as one end of end-to-end encryption, as OpenZiti's router tunnel is: the hosting side of a router-hosted
// terminator an SDK dials with a key (kx server: a fresh key pair per circuit, its key answered in `c.ready`), or the
// dialing side of a tunnel listener's (or CONNECT client's) circuit to an SDK-hosted service that requires encryption
// (kx client: its key in the route, the host SDK's from `c.ready`). The plain TCP connection is wrapped so that the
// circuit carries only ciphertext. Toward the other end: this side's 24-byte stream header first, alone, then each
// read of the socket sealed as one message of at most `maxPlainBytes` (so a sealed message fits one link data frame
// and keeps its bounds to an SDK). From the other end: its header, then one message per chunk, opened and written to
// the socket. A message that fails authentication destroys the stream (the circuit closes): nothing forged reaches
// the socket.
import type { EndStream } from '../circuits/circuit-end.ts';
import { Duplex } from 'node:stream';
import { newKeyPair, openE2eStreams, streamOverheadBytes, type E2eStreams, type KxKeyPair } from '../../common/edge-protocol/e2e-crypto.ts';

/** Plaintext per sealed message: 32 KiB, as the C SDK coalesces (plus 17 bytes it stays well under a 64 KiB frame). */
export const maxPlainBytes = 32 * 1024;

export class E2eHostStream extends Duplex {
  private constructor(
    private readonly socket: EndStream,
    private readonly streams: E2eStreams,
  ) {
    super({ allowHalfOpen: true });
    this.push(streams.encryptor.header);
    socket.on('data', (chunk: Buffer) => this.seal(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => {
      if (!this.destroyed && !this.writableFinished) this.destroy();
    });
  }

  /** Wraps `socket` for a circuit whose dialer's public key is `dialerKey` (base64); answers the host's key. */
  static host(socket: EndStream, dialerKey: string): { readonly stream: E2eHostStream; readonly hostKey: string } {
    const keys = newKeyPair();
    const streams = openE2eStreams('host', keys, Buffer.from(dialerKey, 'base64'));
    return { stream: new E2eHostStream(socket, streams), hostKey: keys.publicKey.toString('base64') };
  }

  /** Wraps `socket` as the dialing side, with this side's `keys` (whose public key the route carried) and the host's. */
  static dialer(socket: EndStream, keys: KxKeyPair, hostKey: string): E2eHostStream {
    return new E2eHostStream(socket, openE2eStreams('dialer', keys, Buffer.from(hostKey, 'base64')));
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(cipher: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    let plain: Buffer | undefined;
    try {
      plain = this.streams.decryptor.receive(cipher);
    } catch (error) {
      return callback(error as Error);
    }
    if (plain === undefined || plain.length === 0) return callback();
    this.socket.write(plain, (error) => callback(error ?? null));
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(() => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.destroy();
    callback(error);
  }

  private seal(chunk: Buffer): void {
    let more = true;
    for (let offset = 0; offset < chunk.length; offset += maxPlainBytes) {
      more = this.push(this.streams.encryptor.encrypt(chunk.subarray(offset, offset + maxPlainBytes)));
    }
    if (!more) this.socket.pause();
  }
}

/** Bytes a sealed piece of `maxPlainBytes` takes: what the circuit carries per message at most. */
export const maxSealedBytes = maxPlainBytes + streamOverheadBytes;
