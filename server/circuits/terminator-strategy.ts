// Which of a service's reachable terminators a circuit uses, as the service's `terminatorStrategy` says. Precedence
// comes first, whatever the strategy: `required` terminators beat `default` ones, and `failed` ones are used only when
// no other is reachable. Within the best precedence present:
// - smartrouting (the default): the lowest total cost, the terminator's cost plus the path's (ms of latency);
// - weighted: a random pick in which a terminator's chance falls as its total cost rises (weight 1 / (1 + cost));
// - random: a uniform random pick, costs ignored;
// - ha: the lowest terminator cost, path cost ignored (so the active terminator does not change as latency
//   wobbles; an admin moves traffic by changing cost or precedence), path cost only breaking a tie.
// Ties always go to the lower terminator id, so every controller picks the same one from the same rows. Pure: the
// randomness is a parameter (a number in [0, 1)).

export type TerminatorPrecedence = 'required' | 'default' | 'failed';
export type TerminatorStrategyName = 'smartrouting' | 'weighted' | 'random' | 'ha';

export interface TerminatorCandidate {
  readonly id: string;
  readonly precedence: TerminatorPrecedence;
  /** The terminator's own cost (0–65535). */
  readonly cost: number;
  /** The cost of the path from the ingress router to the terminator's router. */
  readonly pathCost: number;
}

const precedenceRank: Readonly<Record<TerminatorPrecedence, number>> = { required: 0, default: 1, failed: 2 };

/** The chosen candidate, or undefined when there is none. An unknown strategy name is treated as smartrouting. */
export function chooseTerminator<T extends TerminatorCandidate>(candidates: readonly T[], strategy: string, random: () => number): T | undefined {
  if (candidates.length === 0) return undefined;
  const bestRank = Math.min(...candidates.map((candidate) => precedenceRank[candidate.precedence]));
  const pool = candidates.filter((candidate) => precedenceRank[candidate.precedence] === bestRank).sort(byId);
  switch (strategy) {
    case 'random':
      return pool[pick(random, pool.length)];
    case 'weighted':
      return weightedPick(pool, random);
    case 'ha':
      return lowest(pool, (candidate) => [candidate.cost, candidate.pathCost]);
    default:
      return lowest(pool, (candidate) => [candidate.cost + candidate.pathCost]);
  }
}

function weightedPick<T extends TerminatorCandidate>(pool: readonly T[], random: () => number): T {
  const weights = pool.map((candidate) => 1 / (1 + Math.max(0, candidate.cost + candidate.pathCost)));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let point = clampUnit(random()) * total;
  for (let i = 0; i < pool.length; i++) {
    point -= weights[i]!;
    if (point < 0) return pool[i]!;
  }
  return pool[pool.length - 1]!;
}

/** The candidate with the lexicographically smallest key (pool is in id order, so ties keep the lower id). */
function lowest<T extends TerminatorCandidate>(pool: readonly T[], key: (candidate: T) => number[]): T {
  let best = pool[0]!;
  let bestKey = key(best);
  for (const candidate of pool.slice(1)) {
    const candidateKey = key(candidate);
    const i = candidateKey.findIndex((value, index) => value !== bestKey[index]);
    if (i >= 0 && candidateKey[i]! < bestKey[i]!) {
      best = candidate;
      bestKey = candidateKey;
    }
  }
  return best;
}

function pick(random: () => number, length: number): number {
  return Math.min(length - 1, Math.floor(clampUnit(random()) * length));
}

/** A random source that misbehaves (NaN, 1, negative) still yields an index in range. */
function clampUnit(value: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(value, 0), 1 - Number.EPSILON) : 0;
}

function byId(a: TerminatorCandidate, b: TerminatorCandidate): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
