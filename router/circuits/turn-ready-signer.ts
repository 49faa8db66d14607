// Signs the egress's `c.ready`s of one turn of the event loop with one signature (route-batch.ts): readies whose
// routes say `readyBatches` (their ingress takes batches) wait for the end of the turn their dial completed in and
// are signed together; any other ready is signed alone at once, as before. So at a high circuit rate the egress
// makes one ECDSA signature per turn rather than one per circuit, and the ingress verifies one per batch.
import { maxRouteBatch } from '../../common/circuits/route-batch.ts';
import type { ReadyProof, ReadySigner, ReadyStatement } from './ready-proof.ts';

/** Runs `run` at the end of the current turn of the event loop (the forwarder passes setImmediate). */
export type EndOfTurn = (run: () => void) => void;

export class TurnReadySigner {
  private waiting: Array<{ readonly statement: ReadyStatement; readonly done: (proof: ReadyProof) => void }> = [];

  constructor(
    private readonly signer: ReadySigner,
    private readonly endOfTurn: EndOfTurn,
  ) {}

  /** `done` with the proof: at once when not `batchable`, else at the end of the turn with the turn's others. */
  sign(statement: ReadyStatement, batchable: boolean, done: (proof: ReadyProof) => void): void {
    if (!batchable) return done(this.signer.sign(statement.circuitId, statement.routeDigest, statement.received, statement.hostKey));
    if (this.waiting.push({ statement, done }) === 1) this.endOfTurn(() => this.signWaiting());
  }

  private signWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (let start = 0; start < waiting.length; start += maxRouteBatch) {
      const batch = waiting.slice(start, start + maxRouteBatch);
      const proofs = this.signer.signBatch(batch.map(({ statement }) => statement));
      batch.forEach(({ done }, index) => done(proofs[index]!));
    }
  }
}
