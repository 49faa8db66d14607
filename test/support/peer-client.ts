// A controller's side of a peer channel, scripted: connects to a control address with a controller certificate of a
// PKI folder, says hello as that controller, and sends raft messages and requests as a real one would, so a test
// can play a controller that must be refused (removed, or of another cluster) without running it.
import { readFileSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { encodeFrame, FrameDecoder } from '../../common/framing/frame-codec.ts';
import { controllerPaths, pkiPaths } from '../../common/pki/pki-directory.ts';

export class PeerClient {
  private readonly answers = new Map<string, (answer: { ok: boolean; value?: unknown; error?: string }) => void>();
  private nextRid = 1;

  private constructor(private readonly socket: TLSSocket) {
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk) as Array<{ type?: string; rid?: string; sentAt?: number; ok?: boolean; value?: unknown; error?: string }>) {
        if (frame.type === 'hb') socket.write(encodeFrame({ type: 'hbAck', sentAt: frame.sentAt }));
        if (frame.type === 'res' && frame.rid !== undefined) this.answers.get(frame.rid)?.({ ok: frame.ok === true, value: frame.value, error: frame.error });
      }
    });
  }

  /** Connects to `address` (`tls:host:port`) as controller `id` of the PKI in `pkiDir` and says hello. */
  static async connect(pkiDir: string, id: string, address: string): Promise<PeerClient> {
    const [, host, port] = /^tls:(.+):(\d+)$/.exec(address)!;
    const paths = controllerPaths(pkiDir, id);
    const socket = connect({ host, port: Number(port), cert: readFileSync(paths.chain), key: readFileSync(paths.key), ca: readFileSync(pkiPaths(pkiDir).bundle), checkServerIdentity: () => undefined });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.write(encodeFrame({ type: 'hello', hello: { id, address: 'tls:127.0.0.1:1', version: 'v0.0.0-peer-client', preferred: false } }));
    return new PeerClient(socket);
  }

  raft(message: Record<string, unknown>): void {
    this.socket.write(encodeFrame({ type: 'raft', message }));
  }

  /** Sends a request; the answer as the controller gave it (ok or its error), or a timeout error. */
  request(body: unknown, timeoutMs = 10_000): Promise<{ ok: boolean; value?: unknown; error?: string }> {
    const rid = `peer-client-${this.nextRid++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(body)} within ${timeoutMs} ms`)), timeoutMs);
      this.answers.set(rid, (answer) => {
        clearTimeout(timer);
        this.answers.delete(rid);
        resolve(answer);
      });
      this.socket.write(encodeFrame({ type: 'req', rid, body }));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
