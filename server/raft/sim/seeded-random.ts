// A small, fast, seeded generator (mulberry32): the same seed replays the same run exactly.
export interface Random {
  (): number;
  int(maxExclusive: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  fork(salt: number): Random;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random = next as Random;
  random.int = (maxExclusive) => Math.floor(next() * maxExclusive);
  random.chance = (probability) => next() < probability;
  random.pick = (items) => items[Math.floor(next() * items.length)]!;
  random.fork = (salt) => seededRandom((Math.floor(next() * 4294967296) ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0);
  return random;
}
