// Pairs the two halves of split links at a link listener: the `payload` and the `ack` connection of one link carry
// the same link id and must come from the same router. The first half to arrive waits here for its partner; the
// listener (the driver) times the wait and withdraws a half that waited too long or closed. No I/O, no clock.

export interface LinkHalf<T> {
  readonly routerId: string;
  readonly linkId: string;
  readonly connType: 'payload' | 'ack';
  /** The connection, opaque here. */
  readonly connection: T;
}

export type PairingOutcome<T> =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'paired'; readonly payload: LinkHalf<T>; readonly ack: LinkHalf<T> }
  | { readonly kind: 'refused'; readonly reason: string };

export class SplitLinkPairing<T> {
  private readonly waiting = new Map<string, LinkHalf<T>>();

  /** A half whose hello passed the listener's checks: it waits, completes a pair, or is refused (the waiting half stays). */
  offer(half: LinkHalf<T>): PairingOutcome<T> {
    const partner = this.waiting.get(half.linkId);
    if (partner === undefined) {
      this.waiting.set(half.linkId, half);
      return { kind: 'waiting' };
    }
    if (partner.connType === half.connType) {
      return { kind: 'refused', reason: `duplicate ${half.connType} connection for link id ${half.linkId}` };
    }
    if (partner.routerId !== half.routerId) {
      return {
        kind: 'refused',
        reason: `the ${half.connType} connection of link id ${half.linkId} comes from router "${half.routerId}", its ${partner.connType} connection from "${partner.routerId}"`,
      };
    }
    this.waiting.delete(half.linkId);
    return half.connType === 'payload' ? { kind: 'paired', payload: half, ack: partner } : { kind: 'paired', payload: partner, ack: half };
  }

  /** Whether a half of `linkId` is waiting (its id is taken). */
  has(linkId: string): boolean {
    return this.waiting.has(linkId);
  }

  /** Stops `half` waiting; false when it is not the one waiting (already paired or withdrawn). */
  withdraw(half: LinkHalf<T>): boolean {
    if (this.waiting.get(half.linkId) !== half) return false;
    this.waiting.delete(half.linkId);
    return true;
  }

  /** Every waiting half, removed (the listener is stopping). */
  drain(): LinkHalf<T>[] {
    const halves = [...this.waiting.values()];
    this.waiting.clear();
    return halves;
  }
}
