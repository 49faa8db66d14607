// Dials a terminator's address for a circuit arriving at the router that hosts it, through the forwarder's xgress
// dial queue: at most `xgressDialWorkerCount` dials at once, at most `xgressDialQueueLength` waiting (a dial that
// finds the queue full fails at once, and the circuit with it), each waiting `xgressDialDwellTime` before it dials.
import { connect, type Socket } from 'node:net';
import { parseTerminatorAddress } from '../../common/circuits/terminator-address.ts';
import { BoundedWorkQueue } from '../work/bounded-work-queue.ts';

export { parseTerminatorAddress };

export interface EgressDialerOptions {
  readonly queueLength: number;
  readonly workers: number;
  readonly dwellMs: number;
  readonly timeoutMs: number;
}

interface Dial {
  readonly address: string;
  readonly resolve: (socket: Socket) => void;
  readonly reject: (error: Error) => void;
}

export class EgressDialer {
  private readonly queue: BoundedWorkQueue<Dial>;
  private stopped = false;

  constructor(private readonly options: EgressDialerOptions) {
    this.queue = new BoundedWorkQueue<Dial>({ maxQueued: options.queueLength, workers: options.workers, handle: (dial) => this.run(dial) });
  }

  /** A connected socket (paused, half-open allowed), or an error saying why not. */
  dial(address: string): Promise<Socket> {
    return new Promise((resolve, reject) => {
      if (this.stopped) return reject(new Error('router stopping'));
      if (!this.queue.push({ address, resolve, reject })) reject(new Error(`the xgress dial queue is full (${this.options.queueLength} waiting, ${this.options.workers} dialing)`));
    });
  }

  get waiting(): number {
    return this.queue.queued;
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(dial: Dial): Promise<void> {
    if (this.options.dwellMs > 0) await new Promise((resolve) => setTimeout(resolve, this.options.dwellMs));
    if (this.stopped) return dial.reject(new Error('router stopping'));
    const target = parseTerminatorAddress(dial.address);
    if (!target) return dial.reject(new Error(`cannot dial terminator address ${dial.address}`));
    await new Promise<void>((done) => {
      const socket = connect({ host: target.host, port: target.port, allowHalfOpen: true });
      socket.pause();
      const timer = setTimeout(() => {
        socket.destroy();
        fail(new Error(`no answer from ${dial.address} within ${this.options.timeoutMs}ms`));
      }, this.options.timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.removeAllListeners('connect');
        dial.reject(new Error(`dial ${dial.address} failed: ${error.message}`));
        done();
      };
      socket.once('error', fail);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeListener('error', fail);
        dial.resolve(socket);
        done();
      });
    });
  }
}
