// What the router does when its controller revokes: `ctrl.circuitClose` closes the named circuits (this router is
// their ingress) at once, both ends reset; `ctrl.refused` with `revoked` (this router was disabled or deleted)
// closes every circuit it holds. The message is checked first: a malformed one is logged and changes nothing.
import { circuitRevocationCodes, maxRevokedCircuitsPerMessage, type CircuitRevocationCode } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';

export interface CircuitCloser {
  closeCircuits(ids: Iterable<string> | 'all', reason: string): number;
}

export interface CircuitClose {
  readonly circuitIds: readonly string[];
  readonly code: CircuitRevocationCode;
  readonly reason: string;
}

/** A `ctrl.circuitClose` as sent, or undefined when it is malformed (ids bounded in number and length). */
export function readCircuitClose(message: unknown): CircuitClose | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { circuitIds, code, reason } = message as Record<string, unknown>;
  if (!Array.isArray(circuitIds) || circuitIds.length > maxRevokedCircuitsPerMessage) return undefined;
  if (!circuitIds.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 512)) return undefined;
  if (!circuitRevocationCodes.includes(code as CircuitRevocationCode)) return undefined;
  return { circuitIds: circuitIds as string[], code: code as CircuitRevocationCode, reason: typeof reason === 'string' ? reason.slice(0, 1024) : '' };
}

export class CircuitRevocation {
  constructor(
    private readonly circuits: CircuitCloser,
    private readonly logger: Logger,
  ) {}

  /** `ctrl.circuitClose`: the controller revoked what these circuits were dialed with. */
  circuitClose(message: unknown): void {
    const read = readCircuitClose(message);
    if (!read) {
      this.logger.warn('circuit close from the controller ignored: malformed');
      return;
    }
    const closed = this.circuits.closeCircuits(read.circuitIds, `revoked by the controller: ${read.code}: ${read.reason}`);
    this.logger.info('circuits closed: revoked by the controller', { code: read.code, reason: read.reason, requested: read.circuitIds.length, closed });
  }

  /** `ctrl.refused` with `revoked`: this router was disabled or deleted, so none of its circuits may go on. */
  routerRevoked(reason: string): void {
    const closed = this.circuits.closeCircuits('all', `this router was revoked: ${reason}`);
    this.logger.warn('all circuits closed: this router was disabled or deleted', { reason, closed });
  }
}
