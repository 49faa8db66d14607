// One dialed connection on an edge router channel, as a Node Duplex: writes leave as Data messages of at most 32 KiB
// of plaintext (sealed when the service requires end-to-end encryption), end() sends FIN (half-close: reading goes
// on), a FIN from the far side ends the readable side, StateClosed ends both, destroy() sends StateClosed. With
// encryption the StateConnected reply carries the host's key: the streams open then, before any Data that follows it,
// and this side's 24-byte stream header is its first Data (the fact sheet's §4).
import { Duplex } from 'node:stream';
import { edgeContentType } from '../common/edge-protocol/edge-content-types.ts';
import type { EdgeMessage } from '../common/edge-protocol/edge-frame-codec.ts';
import { E2eCryptoError, openE2eStreams, type KxKeyPair, type StreamDecryptor, type StreamEncryptor } from '../common/edge-protocol/e2e-crypto.ts';
import { buildMessage, parseMessage } from '../common/edge-protocol/edge-messages.ts';
import type { ConnectionSink, EdgeRouterChannel } from './edge-router-channel.ts';
import { EdgeSdkError } from './sdk-errors.ts';

/** Most plaintext bytes in one Data message (the C SDK coalesces up to 31 KiB; secretstream adds 17). */
export const maxDataPayloadBytes = 32 * 1024;
/** How long a connection whose both directions ended waits for the router's StateClosed before sending its own. */
export const closeWaitMs = 5_000;

export class EdgeConnection extends Duplex implements ConnectionSink {
  private encryptor: StreamEncryptor | undefined;
  private decryptor: StreamDecryptor | undefined;
  private connected = false;
  private remoteClosed = false;
  /** The circuit the router built for this connection (header 1026 of StateConnected). */
  circuitId: string | undefined;

  constructor(
    private readonly channel: EdgeRouterChannel,
    readonly connId: number,
    readonly service: string,
    /** This side's key pair when the service requires end-to-end encryption. */
    private readonly keys: KxKeyPair | undefined,
  ) {
    // Not auto-destroyed once both sides ended: the router's StateClosed is still to come (waited for up to
    // closeWaitMs), and answering it is how the router learns nothing is left to send.
    super({ allowHalfOpen: true, autoDestroy: false });
    channel.register(connId, this);
    this.once('end', () => this.bothEnded());
    this.once('finish', () => this.bothEnded());
  }

  /**
   * The hosting side of a connection a Dial opened (after its DialSuccess left): with encryption, the streams open
   * with the dialer's key from the Dial and this side's stream header is its first Data.
   */
  startAsHost(dialerPublicKey: Buffer | undefined): void {
    if (this.keys) {
      if (!dialerPublicKey) throw new EdgeSdkError('protocol', 'the service requires encryption but the Dial carries no dialer key');
      const streams = openE2eStreams('host', this.keys, dialerPublicKey);
      this.encryptor = streams.encryptor;
      this.decryptor = streams.decryptor;
      this.sendData(streams.encryptor.header);
    }
    this.connected = true;
  }

  get encrypted(): boolean {
    return this.keys !== undefined;
  }

  message(message: EdgeMessage): void {
    try {
      this.handle(message);
    } catch (error) {
      const reason = error instanceof E2eCryptoError ? error.message : `bad message from the edge router: ${(error as Error).message}`;
      this.fail(new EdgeSdkError('protocol', reason, { cause: error }));
    }
  }

  channelClosed(reason: string): void {
    this.remoteClosed = true;
    if (!this.destroyed) this.destroy(new EdgeSdkError('closed', `the channel to the edge router closed: ${reason}`));
  }

  private handle(message: EdgeMessage): void {
    switch (message.contentType) {
      case edgeContentType.stateConnected: {
        const connected = parseMessage.stateConnected(message);
        this.circuitId = connected.circuitId;
        if (this.keys) {
          if (!connected.publicKey) throw new EdgeSdkError('protocol', 'the service requires encryption but StateConnected carries no host key');
          const streams = openE2eStreams('dialer', this.keys, connected.publicKey);
          this.encryptor = streams.encryptor;
          this.decryptor = streams.decryptor;
          this.sendData(streams.encryptor.header);
        }
        this.connected = true;
        return;
      }
      case edgeContentType.stateClosed: {
        const closed = parseMessage.stateClosed(message);
        this.remoteClosed = true;
        this.channel.unregister(this.connId);
        // A refusal of the Connect is the dialer's to report; a close after it ends the connection.
        if (this.connected) {
          this.emit('routerClosed', closed.reason);
          this.writeRefusal = `the edge router closed the connection: ${closed.reason || 'no reason given'}`;
          if (this.readableEnded) this.destroy();
          else {
            this.once('end', () => this.destroy());
            this.endReadable();
          }
        }
        return;
      }
      case edgeContentType.data: {
        const data = parseMessage.data(message);
        // Nothing may follow the far side's FIN in its direction.
        if (this.eof) throw new EdgeSdkError('protocol', 'Data after FIN');
        if (data.payload.length > 0) {
          const plain = this.decryptor ? this.decryptor.receive(data.payload) : data.payload;
          if (plain !== undefined && plain.length > 0 && !this.push(plain)) this.channel.readerFull(this.connId);
        } else if (this.decryptor && !data.fin) {
          throw new EdgeSdkError('protocol', 'an empty Data message on an encrypted connection');
        }
        if (data.fin) this.endReadable();
        return;
      }
      default:
        // Nothing else is addressed to a dialed connection; unknown types are ignored as SDKs do.
        return;
    }
  }

  private writeRefusal: string | undefined;
  private eof = false;

  private endReadable(): void {
    if (this.eof) return;
    this.eof = true;
    this.push(null);
  }
  private closeTimer: NodeJS.Timeout | undefined;

  /** Both directions ended: wait a bounded time for the router's StateClosed, then close from this side. */
  private bothEnded(): void {
    if (!this.readableEnded || !this.writableFinished || this.destroyed || this.closeTimer) return;
    if (this.remoteClosed) return void this.destroy();
    this.closeTimer = setTimeout(() => this.destroy(), closeWaitMs);
    this.closeTimer.unref();
  }

  override _read(): void {
    this.channel.readerCaughtUp(this.connId);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.writeRefusal) return callback(new EdgeSdkError('closed', this.writeRefusal));
    if (this.remoteClosed) return callback(new EdgeSdkError('closed', 'the edge router closed the connection'));
    for (let offset = 0; offset < chunk.length; offset += maxDataPayloadBytes) {
      const piece = chunk.subarray(offset, offset + maxDataPayloadBytes);
      if (!this.sendData(this.encryptor ? this.encryptor.encrypt(piece) : piece)) return callback(new EdgeSdkError('closed', 'the channel to the edge router is closed'));
    }
    if (!this.channel.writeBackedUp) return callback();
    this.channel.drained().then(
      (open) => callback(open ? undefined : new EdgeSdkError('closed', 'the channel to the edge router is closed')),
      (error: Error) => callback(error),
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.remoteClosed) this.channel.send(buildMessage.fin({ sequence: this.channel.nextSequence(), connId: this.connId }));
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.closeTimer);
    this.channel.unregister(this.connId);
    if (!this.remoteClosed) {
      this.remoteClosed = true;
      this.channel.send(buildMessage.stateClosed({ sequence: this.channel.nextSequence(), connId: this.connId }));
    }
    callback(error);
  }

  private fail(error: EdgeSdkError): void {
    if (!this.destroyed) this.destroy(error);
  }

  private sendData(payload: Buffer): boolean {
    return this.channel.send(buildMessage.data({ sequence: this.channel.nextSequence(), connId: this.connId, payload }));
  }
}
