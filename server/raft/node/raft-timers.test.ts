// The node runs on the clock and timers it is given: with manual timers nothing happens until the test moves time,
// elections and deadlines follow that time exactly, and a closed node leaves no timer behind. (The simulator drives
// the real node this way.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../common/log/logger.ts';
import { seededRandom } from '../sim/seeded-random.ts';
import type { ApplyResult, CommittedEntry } from '../state-machine.ts';
import { MemoryRaftStore } from '../storage/memory-raft-store.ts';
import { MemorySnapshotStore } from '../storage/memory-snapshot-store.ts';
import { RaftNode, type RaftStateMachine } from './raft-node.ts';
import { ManualRaftTimers } from './raft-timers.ts';
import { InProcessTransport } from './raft-transport.ts';

class CountingMachine implements RaftStateMachine {
  applied = 0;
  appliedIndex(): number {
    return this.applied;
  }
  async apply(entries: readonly CommittedEntry[]): Promise<ApplyResult[]> {
    return entries.map((entry) => ((this.applied = entry.index), { ok: true, value: entry.index }));
  }
  snapshot(): unknown {
    return { applied: this.applied };
  }
  async restore(_data: unknown, index: number): Promise<void> {
    this.applied = index;
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('manual timers: elections, waits and closing follow the given clock, not the wall clock', async () => {
  const timers = new ManualRaftTimers(1_000_000);
  const node = await RaftNode.start({
    id: 'a',
    store: new MemoryRaftStore(),
    snapshots: new MemorySnapshotStore(),
    stateMachine: new CountingMachine(),
    transport: new InProcessTransport(),
    timing: { tickMs: 10, electionTicks: 10, heartbeatTicks: 2, commitTimeoutMs: 3000 },
    snapshotPolicy: { intervalMs: 60_000, threshold: 1000, trailingLogs: 5 },
    // Two absent voters: this node can campaign but never win.
    bootstrap: { voters: ['a', 'b', 'c'], nonVoters: [] },
    random: seededRandom(7),
    logger: silentLogger,
    timers,
  });
  assert.equal(timers.pending, 2, 'the tick and the snapshot check');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(node.status().role, 'follower', 'no campaign while the clock stands still, however long the wall clock runs');

  // An election timeout is 10 to 20 ticks of 10 ms.
  timers.advance(210);
  await settle();
  assert.match(node.status().role, /candidate/, 'a (pre-vote) campaign once the given clock passed the election timeout');

  const waiting = node.waitForApplied(50, 1_000);
  const refusal: { error?: Error } = {};
  waiting.catch((error: Error) => (refusal.error = error));
  timers.advance(990);
  await settle();
  assert.equal(refusal.error, undefined, 'not yet: 990 of 1000 ms');
  timers.advance(20);
  await settle();
  assert.match(String((refusal as { error?: Error }).error?.message), /not applied within 1000 ms/);

  await node.close();
  assert.equal(timers.pending, 0, 'closing cancels its timers');
});

test('manual timers run what falls due in time order, periodic ones again, and cancelled ones never', () => {
  const timers = new ManualRaftTimers();
  const seen: string[] = [];
  const cancel = timers.every(10, () => seen.push(`tick@${timers.now()}`));
  timers.after(25, () => seen.push(`once@${timers.now()}`));
  const never = timers.after(15, () => seen.push('never'));
  never();
  timers.advance(30);
  assert.deepEqual(seen, ['tick@10', 'tick@20', 'once@25', 'tick@30']);
  cancel();
  timers.advance(100);
  assert.equal(seen.length, 4);
  assert.equal(timers.now(), 130);
});
