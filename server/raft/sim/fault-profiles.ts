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
  | 'crashLeader'
  | 'isolateLeader'
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
  actions: { deliver: 400, tick: 375, propose: 120, read: 20, crash: 10, crashLeader: 4, isolateLeader: 3, restart: 30, partition: 6, heal: 12, transfer: 5, reconfigure: 7, leaderLost: 5, fillDisk: 2, clockStep: 3, snapshot: 5 },
  network: { drop: 0.05, duplicate: 0.03, maxDelayMs: 6 * tickMs, longDelay: 0.03, longDelayMs: 40 * tickMs },
  crashInFlight: 0.008,
  writeHoldBack: 0.15,
};

const leaning: readonly FaultProfile[] = [
  { ...balanced, name: 'crashes mid-write', actions: { ...balanced.actions, crash: 25, restart: 60 }, crashInFlight: 0.04, writeHoldBack: 0.3 },
  { ...balanced, name: 'lossy, slow network', network: { drop: 0.2, duplicate: 0.1, maxDelayMs: 10 * tickMs, longDelay: 0.1, longDelayMs: 60 * tickMs } },
  { ...balanced, name: 'partitions', actions: { ...balanced.actions, partition: 20, heal: 10, leaderLost: 10 } },
  { ...balanced, name: 'leadership and membership churn', actions: { ...balanced.actions, transfer: 25, reconfigure: 30, leaderLost: 15, crash: 15 } },
  { ...balanced, name: 'leaders fail', actions: { ...balanced.actions, crashLeader: 20, isolateLeader: 15, heal: 20, restart: 60 } },
  {
    name: 'everything at once',
    actions: { ...balanced.actions, crash: 25, restart: 60, partition: 15, heal: 15, transfer: 15, reconfigure: 15, leaderLost: 10 },
    network: { drop: 0.1, duplicate: 0.1, maxDelayMs: 8 * tickMs, longDelay: 0.08, longDelayMs: 50 * tickMs },
    crashInFlight: 0.03,
    writeHoldBack: 0.3,
  },
];

/** A third of the seeds run the balanced mix; the others one of the leaning ones. */
export function pickFaultProfile(random: Random): FaultProfile {
  return random.chance(1 / 3) ? balanced : random.pick(leaning);
}

/** The action a roll in [0, 1) picks under a profile's weights. */
export function pickAction(profile: FaultProfile, roll: number): SimAction {
  const { actions, bounds } = cumulative(profile);
  const target = roll * bounds[bounds.length - 1]!;
  for (let i = 0; i < bounds.length; i++) if (target < bounds[i]!) return actions[i]!;
  return 'tick';
}

/** Each profile's actions with their running weight totals, made once (the simulator picks an action every step). */
const tables = new WeakMap<FaultProfile, { actions: SimAction[]; bounds: number[] }>();

function cumulative(profile: FaultProfile): { actions: SimAction[]; bounds: number[] } {
  let table = tables.get(profile);
  if (!table) {
    const actions = Object.keys(profile.actions) as SimAction[];
    let total = 0;
    table = { actions, bounds: actions.map((action) => (total += profile.actions[action])) };
    tables.set(profile, table);
  }
  return table;
}
