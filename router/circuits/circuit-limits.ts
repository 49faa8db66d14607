// The caps on concurrent circuits (forwarder.maxCircuits, forwarder.maxCircuitsPerIdentity): whether this router may
// take one more, and if not, the refusal's code and client-safe message. Pure: the forwarder passes its counts.

export interface CircuitLimits {
  /** Circuits the router holds at once, in any role. */
  readonly maxCircuits: number;
  /** Circuits one identity dials at once through the router's edge listeners. */
  readonly maxCircuitsPerIdentity: number;
}

export interface CircuitLimitTable {
  /** Circuits in the table now (set up, up, re-routing). */
  circuitCount(): number;
  /** Circuits this router is the ingress of that edge clients dialed as `identityId`. */
  edgeCircuitsOf(identityId: string): number;
}

/** `CIRCUIT_LIMIT`: the router is full (HTTP 503); `IDENTITY_CIRCUIT_LIMIT`: this identity is (HTTP 429). */
export type CircuitLimitCode = 'CIRCUIT_LIMIT' | 'IDENTITY_CIRCUIT_LIMIT';

export interface CircuitLimitProblem {
  readonly code: CircuitLimitCode;
  readonly message: string;
  /** The config key whose cap was reached. */
  readonly limit: 'forwarder.maxCircuits' | 'forwarder.maxCircuitsPerIdentity';
}

/** Why one more circuit cannot be taken, or undefined. `edgeIdentity`: the identity of an edge client dialing here. */
export function circuitLimitProblem(table: CircuitLimitTable, limits: CircuitLimits, edgeIdentity?: string): CircuitLimitProblem | undefined {
  if (table.circuitCount() >= limits.maxCircuits) {
    return { code: 'CIRCUIT_LIMIT', limit: 'forwarder.maxCircuits', message: `the router is at its circuit limit (forwarder.maxCircuits: ${limits.maxCircuits})` };
  }
  if (edgeIdentity !== undefined && table.edgeCircuitsOf(edgeIdentity) >= limits.maxCircuitsPerIdentity) {
    return {
      code: 'IDENTITY_CIRCUIT_LIMIT',
      limit: 'forwarder.maxCircuitsPerIdentity',
      message: `this identity has as many circuits through the router as it may (forwarder.maxCircuitsPerIdentity: ${limits.maxCircuitsPerIdentity})`,
    };
  }
  return undefined;
}
