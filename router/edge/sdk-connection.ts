// One virtual connection of an SDK's edge channel (a connId), as the stream a circuit end reads and writes: Data
// from the SDK is pushed into it, what the circuit writes goes to the SDK as Data, the circuit's half-close is a FIN
// Data and its close a StateClosed. Each Data body is pushed as one chunk and each write is one Data, so a body
// (an end-to-end encrypted message) keeps its bounds across the circuit. An SDK does no flow control of its own: a
// connection whose circuit stops reading holds at most its high-water mark before the channel stops reading the
// SDK's socket (`onFull`), until the circuit reads again (`onReadable`).
import { Duplex } from 'node:stream';

export interface SdkConnectionOutput {
  data(connId: number, body: Buffer, onWritten: () => void): void;
  fin(connId: number, onWritten: () => void): void;
  /** The router ends the connection (the SDK did not): a StateClosed to the SDK. */
  closed(connId: number, reason: string): void;
  /** This connection holds its high-water mark of the SDK's bytes unread: stop reading the channel. */
  full(connId: number): void;
  /** It reads again. */
  readable(connId: number): void;
  /** It is gone (either side closed it): forget its id. */
  gone(connId: number): void;
}

/** What a connection may hold of the SDK's bytes before the channel stops reading (one window of a C SDK's writes). */
export const connectionHighWaterBytes = 256 * 1024;

/** How long a connection the SDK closed waits for the circuit's far end to finish before it is cut. */
export const closeLingerMs = 5_000;

export class SdkConnection extends Duplex {
  /** The SDK sent StateClosed: nothing more goes to it. */
  private closedBySdk = false;
  private finReceived = false;
  private lingerTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly connId: number,
    private readonly out: SdkConnectionOutput,
  ) {
    super({ allowHalfOpen: true, readableHighWaterMark: connectionHighWaterBytes });
  }

  /** A Data body from the SDK. */
  receive(body: Buffer): void {
    if (this.finReceived || this.destroyed) return;
    if (body.length > 0 && !this.push(body)) this.out.full(this.connId);
  }

  /** The SDK half-closed (a FIN Data): it writes nothing more. */
  receiveFin(): void {
    if (this.finReceived || this.destroyed) return;
    this.finReceived = true;
    this.push(null);
  }

  /** The SDK closed the connection (StateClosed): its end of the circuit half-closes, and the rest is cut soon. */
  receiveClose(): void {
    if (this.destroyed) return;
    this.closedBySdk = true;
    this.receiveFin();
    this.lingerTimer = setTimeout(() => this.destroy(), closeLingerMs);
    this.lingerTimer.unref();
  }

  /** The circuit end's call; a virtual connection has no Nagle to turn off. */
  setNoDelay(): this {
    return this;
  }

  override _read(): void {
    this.out.readable(this.connId);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.closedBySdk) return callback();
    this.out.data(this.connId, chunk, () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.closedBySdk) return callback();
    this.out.fin(this.connId, () => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    if (!this.closedBySdk) this.out.closed(this.connId, error?.message ?? '');
    this.closedBySdk = true;
    this.out.gone(this.connId);
    callback(error);
  }

  /** The channel closed: the connection ends without telling the SDK. */
  channelClosed(): void {
    this.closedBySdk = true;
    this.destroy();
  }
}
