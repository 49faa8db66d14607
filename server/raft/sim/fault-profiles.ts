// How often each action happens in a seed's fault phase. Seeds differ in their mix: most run the balanced one, and
// others lean on one kind of trouble (crashes mid-write, a lossy and slow network, partitions, membership and
// leadership churn), because some bugs show only when one fault is frequent and the others rare.
import type { NetworkFaults } from './sim-network.ts';
import type { Random } from './seeded-random.ts';

export type SimAction =
  | 'deliver'
  | 'tick'
  | 'propose'
  | 'read'
  | 'crash'
  | 'restart'
  | 'partition'
  | 'heal'
  | 'transfer'
  | 'reconfigure'
  | 'leaderLost'
  | 'fillDisk'
  | 'clockStep'
  | 'snapshot';

export interface FaultProfile {
  readonly name: string;
  /** Relative weight of each action per step. */
  readonly actions: Readonly<Record<SimAction, number>>;
  readonly network: NetworkFaults;
  /** Chance, per node and round, that a node with writes in flight crashes there and then. */
  readonly crashInFlight: number;
  /** Chance that a due write is held back another round (a slow fsync): a crash then finds it in flight. */
  readonly writeHoldBack: number;
}

const tickMs = 10;

const balanced: FaultProfile = {
  name: 'balanced',
  actions: { deliver: 400, tick: 375, propose: 120, read: 20, crash: 10, restart: 30, partition: 6, heal: 12, transfer: 5, reconfigure: 7, leaderLost: 5, fillDisk: 2, clockStep: 3, snapshot: 5 },
  network: { drop: 0.05, duplicate: 0.03, maxDelayMs: 6 * tickMs, longDelay: 0.03, longDelayMs: 40 * tickMs },
  crashInFlight: 0.008,
  writeHoldBack: 0.15,
};

const leaning: readonly FaultProfile[] = [
  { ...balanced, name: 'crashes mid-write', actions: { ...balanced.actions, crash: 25, restart: 60 }, crashInFlight: 0.04, writeHoldBack: 0.3 },
  { ...balanced, name: 'lossy, slow network', network: { drop: 0.2, duplicate: 0.1, maxDelayMs: 10 * tickMs, longDelay: 0.1, longDelayMs: 60 * tickMs } },
  { ...balanced, name: 'partitions', actions: { ...balanced.actions, partition: 20, heal: 10, leaderLost: 10 } },
  { ...balanced, name: 'leadership and membership churn', actions: { ...balanced.actions, transfer: 25, reconfigure: 30, leaderLost: 15, crash: 15 } },
];

/** Half the seeds run the balanced mix; the others one of the leaning ones. */
export function pickFaultProfile(random: Random): FaultProfile {
  return random.chance(0.5) ? balanced : random.pick(leaning);
}

/** The action a roll in [0, 1) picks under a profile's weights. */
export function pickAction(profile: FaultProfile, roll: number): SimAction {
  const entries = Object.entries(profile.actions) as [SimAction, number][];
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let left = roll * total;
  for (const [action, weight] of entries) {
    if (left < weight) return action;
    left -= weight;
  }
  return 'tick';
}
