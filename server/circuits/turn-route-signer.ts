// Signs the routes of one turn of the event loop with one signature (common/circuits/route-batch.ts): routes whose
// every router takes batches wait for the end of the turn they were decided in and are signed together; any other
// route is signed alone at once, as before. So at a high circuit rate the controller makes one ECDSA signature per
// turn rather than one per circuit, and the routers verify one per batch; a lone route costs what it did.
import type { CircuitRoute, RouteSigner, SignedRoute } from '../../common/circuits/circuit-route.ts';
import { maxRouteBatch } from '../../common/circuits/route-batch.ts';

/** Runs `run` at the end of the current turn of the event loop (the controller passes setImmediate). */
export type EndOfTurn = (run: () => void) => void;

type Waiting = { readonly route: CircuitRoute; readonly resolve: (signed: SignedRoute) => void; readonly reject: (error: Error) => void };

export class TurnRouteSigner {
  private waiting: Waiting[] = [];

  constructor(
    private readonly signer: RouteSigner,
    private readonly endOfTurn: EndOfTurn,
  ) {}

  /** The route signed: with this turn's other batchable routes when `batchable`, else alone and at once. */
  sign(route: CircuitRoute, batchable: boolean): Promise<SignedRoute> {
    if (!batchable) return Promise.resolve(this.signer.sign(route));
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ route, resolve, reject }) === 1) this.endOfTurn(() => this.signWaiting());
    });
  }

  private signWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (let start = 0; start < waiting.length; start += maxRouteBatch) {
      const batch = waiting.slice(start, start + maxRouteBatch);
      let signed: SignedRoute[];
      try {
        signed = this.signer.signBatch(batch.map(({ route }) => route));
      } catch (error) {
        for (const { reject } of batch) reject(error as Error);
        continue;
      }
      batch.forEach(({ resolve }, index) => resolve(signed[index]!));
    }
  }
}
