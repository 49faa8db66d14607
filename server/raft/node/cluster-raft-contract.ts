// The behaviour every ClusterRaft (RaftNode, and WorkerRaftNode with its node on the far side of a port) must show
// to the controller and the cluster's services, registered as node:test cases so each implementation runs the same
// suite against its own harness: one leader every member names, proposals resolved with the model's own results in
// log order, waits for an index, refusals typed with their reason, leadership moved on request with observers told,
// a failed model stopping the node, and close refusing what still waits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProposalRefusedError } from '../state-machine.ts';
import type { ClusterRaft } from './raft-node.ts';
import { KvStateMachine, waitFor } from './node-test-support.ts';

export interface ContractMember {
  readonly id: string;
  readonly node: ClusterRaft;
  /** The model this member's node applies to (on the controller's side of a port, for the worker). */
  readonly machine: KvStateMachine;
}

export interface ClusterRaftHarness {
  /** Starts one member per id over one network, each bootstrapped with `voters` (empty: a new, uninitialized node). */
  start(ids: readonly string[], voters: readonly string[]): Promise<ContractMember[]>;
  /** Closes every node it started (twice is harmless) and whatever carries them. */
  cleanup(): Promise<void>;
}

const set = (key: string, value: string) => ({ type: 'set', key, value }) as never;

async function refusal(promise: Promise<unknown>): Promise<ProposalRefusedError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProposalRefusedError, `a ProposalRefusedError, not ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal');
}

/** The one leader every member names (bounded wait). */
export function agreedLeader(members: readonly ContractMember[], timeoutMs = 5000): Promise<ContractMember> {
  return waitFor('a leader every member names', () => {
    const leaders = members.filter((member) => member.node.isLeader());
    if (leaders.length !== 1) return undefined;
    const leader = leaders[0]!;
    return members.every((member) => member.node.leader() === leader.id) ? leader : undefined;
  }, timeoutMs);
}

export function clusterRaftContract(name: string, makeHarness: () => ClusterRaftHarness): void {
  const withCluster = (ids: readonly string[], voters: readonly string[], fn: (members: ContractMember[]) => Promise<void>) => async () => {
    const harness = makeHarness();
    try {
      await fn(await harness.start(ids, voters));
    } finally {
      await harness.cleanup();
    }
  };
  const three = ['a', 'b', 'c'];

  describe(`${name} (ClusterRaft contract)`, () => {
    test('three members elect one leader that all name; proposals resolve in log order with the model\'s results', withCluster(three, three, async (members) => {
      const leader = await agreedLeader(members);
      assert.equal(leader.node.status().role, 'leader');
      const proposals = await Promise.all(Array.from({ length: 20 }, (_, i) => leader.node.propose(set(`k${i}`, `v${i}`))));
      const indexes = proposals.map((proposal) => proposal.index);
      assert.deepEqual(indexes, [...indexes].sort((x, y) => x - y), 'indexes in the order proposed');
      assert.equal(new Set(indexes).size, 20);
      assert.deepEqual(proposals.map((proposal) => proposal.result), proposals.map((_, i) => ({ ok: true, value: i + 1 })), 'the model\'s own results');
      assert.equal(leader.machine.values.get('k19'), 'v19', 'applied on the leader before its proposal resolved');
      const last = indexes.at(-1)!;
      for (const member of members) {
        await member.node.waitForApplied(last, 3000);
        assert.ok(member.node.appliedIndex() >= last, `${member.id} applied ${last}`);
        assert.deepEqual([...member.machine.values], [...leader.machine.values], `${member.id} holds the same model`);
      }
    }));

    test('a follower refuses a proposal as not-leader, naming the leader, and proposes nothing', withCluster(three, three, async (members) => {
      const leader = await agreedLeader(members);
      const follower = members.find((member) => member !== leader)!;
      const refused = await refusal(follower.node.propose(set('x', '1')));
      assert.equal(refused.reason, 'not-leader');
      assert.equal(refused.leader, leader.id);
      const done = await leader.node.propose(set('y', '1'));
      await follower.node.waitForApplied(done.index, 3000);
      assert.equal(follower.machine.values.has('x'), false);
    }));

    test('waitForApplied resolves at once for an applied index and rejects after its timeout for one never reached', withCluster(['solo'], ['solo'], async ([solo]) => {
      await agreedLeader([solo!]);
      const { index } = await solo!.node.propose(set('k', 'v'));
      await solo!.node.waitForApplied(index, 1);
      const started = Date.now();
      await assert.rejects(solo!.node.waitForApplied(index + 1000, 100), /not applied within 100 ms/);
      assert.ok(Date.now() - started < 2000, 'bounded by its timeout');
    }));

    test('a new node is uninitialized until bootstrapped, then leads its one-voter cluster', withCluster(['fresh'], [], async ([fresh]) => {
      const configurations: string[][] = [];
      fresh!.node.observeConfiguration((configuration) => configurations.push([...configuration.voters]));
      await waitFor('the status of a new node', () => fresh!.node.status().id === 'fresh');
      assert.equal(fresh!.node.isUninitialized(), true);
      assert.equal(fresh!.node.isLeader(), false);
      fresh!.node.bootstrap({ voters: ['fresh'], nonVoters: [] });
      await agreedLeader([fresh!]);
      assert.equal(fresh!.node.isUninitialized(), false);
      const proposal = await fresh!.node.propose(set('k', 'v'));
      assert.deepEqual(proposal.result, { ok: true, value: 1 });
      await waitFor('the configuration observed', () => configurations.some((voters) => voters.includes('fresh')));
    }));

    test('leadership moves to the member asked for, and every member\'s observers hear the new leader', withCluster(three, three, async (members) => {
      const leader = await agreedLeader(members);
      const target = members.find((member) => member !== leader)!;
      const heard = new Map<string, string | null>();
      for (const member of members) member.node.observe((softState) => heard.set(member.id, softState.leader));
      assert.equal(await leader.node.transferLeadership(target.id), target.id);
      await waitFor('the target leading, named by every member', () => target.node.isLeader() && members.every((member) => member.node.leader() === target.id));
      await waitFor('every observer told the new leader', () => members.every((member) => heard.get(member.id) === target.id));
      const proposal = await target.node.propose(set('after', 'transfer'));
      assert.deepEqual(proposal.result, { ok: true, value: 1 });
    }));

    test('a model that fails to apply stops the node: failed is set, listeners hear it, proposals are refused as storage', withCluster(['solo'], ['solo'], async ([solo]) => {
      await agreedLeader([solo!]);
      const failures: string[] = [];
      solo!.node.onFailure((error) => failures.push(error.message));
      solo!.machine.failNext = true;
      const first = await refusal(solo!.node.propose(set('k', 'v')));
      assert.equal(first.reason, 'storage');
      await waitFor('the failure heard', () => failures.length > 0);
      assert.match(failures[0]!, /disk full/);
      assert.ok(solo!.node.failed);
      assert.equal((await refusal(solo!.node.propose(set('k2', 'v')))).reason, 'storage');
    }));

    test('close refuses what waits and every later proposal as closed; closing twice is harmless', withCluster(['solo'], ['solo'], async ([solo]) => {
      await agreedLeader([solo!]);
      const { index } = await solo!.node.propose(set('k', 'v'));
      const waiting = solo!.node.waitForApplied(index + 1000, 10_000);
      waiting.catch(() => undefined);
      await solo!.node.close();
      await assert.rejects(waiting, /shutting down/);
      assert.equal((await refusal(solo!.node.propose(set('k2', 'v')))).reason, 'closed');
      await solo!.node.close();
    }));
  });
}
