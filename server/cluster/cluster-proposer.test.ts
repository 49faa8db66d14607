// Writes whose command cannot enter the raft log, through the path the API takes (ModelWriter → ClusterProposer →
// rate limiter → raft node): refused as bad input on the leader and on a follower, and the node goes on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../common/time/clock.ts';
import { ModelWriter } from '../edge/model-writer.ts';
import type { ModelCommand } from '../model/commands.ts';
import { tables, type Identity } from '../model/entities.ts';
import { openTestModel } from '../model/model-test-harness.ts';
import type { RaftNode } from '../raft/node/raft-node.ts';
import type { PeerNetwork } from '../raft/transport/peer-network.ts';
import { EdgeError } from '../edge/edge-error.ts';
import { ClusterProposer, type ForwardedResult } from './cluster-proposer.ts';
import { RateLimitedProposer } from './rate-limited-proposer.ts';
import { AdaptiveRateLimiter } from './rate-limiter.ts';

const at = '2026-01-01T00:00:00.000Z';
const identity = (id: string, tags: Record<string, unknown> = {}): Identity => ({
  id, createdAt: at, updatedAt: at, tags, name: id, typeId: 'Default', isAdmin: false, isDefaultAdmin: false,
  authPolicyId: 'default', externalId: null, roleAttributes: [], disabledAt: null, disabledUntil: null,
});
const create = (id: string, tags?: Record<string, unknown>): ModelCommand => ({ type: 'identity.create', identity: identity(id, tags) });

/** `{a:{a:…{}}}` with `depth` objects, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node = root;
  for (let i = 1; i < depth; i++) node = node.a = {} as Record<string, unknown>;
  return root;
}

async function openLeader() {
  const { store, node, close } = await openTestModel({ prefix: 'edgeward-proposer-' });
  const limiter = new AdaptiveRateLimiter({ clock: new ManualClock() });
  const proposer = new ClusterProposer(node, new RateLimitedProposer(node, limiter), {} as PeerNetwork, 2000);
  return { store, node, proposer, writer: new ModelWriter(proposer), close };
}

async function refusal(write: Promise<unknown>): Promise<EdgeError> {
  const error = await write.then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof EdgeError, `expected an EdgeError, got ${String(error)}`);
  return error;
}

test('a command that cannot enter the log is refused with 400 INVALID_FIELD on the leader, and the node goes on', async () => {
  const leader = await openLeader();
  try {
    const deep = await refusal(leader.writer.write(create('deep', { a: nested(20_000) })));
    assert.equal(deep.code, 'INVALID_FIELD');
    assert.deepEqual(deep.cause, { field: '(root)', reason: 'the command nests too deeply to be encoded as JSON' });
    // Encodable, but deeper than the followers' frames take.
    const tooDeepForPeers = await refusal(leader.writer.write(create('peers', nested(200))));
    assert.equal(tooDeepForPeers.code, 'INVALID_FIELD');
    assert.match((tooDeepForPeers.cause as { field: string }).field, /^identity\.tags\.a\.a/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal((await refusal(leader.writer.write(create('cycle', cyclic)))).code, 'INVALID_FIELD');
    assert.equal((await refusal(leader.writer.write(create('big', { n: 1n })))).code, 'INVALID_FIELD');

    assert.equal(leader.node.failed, undefined);
    const written = await leader.writer.write(create('fine'));
    assert.ok(written.index > 0);
    assert.deepEqual(leader.store.table<Identity>(tables.identities).all().map((row) => row.id), ['fine']);
  } finally {
    await leader.close();
  }
});

test('the leader answers a forwarded write whose command cannot enter the log with that refusal', async () => {
  const leader = await openLeader();
  try {
    // Within the peers' frame depth (it arrived in a frame) but past the command limit.
    const answer = await leader.proposer.serveForwarded({ type: 'propose', command: create('deep', nested(122)) }, 'follower');
    assert.equal(answer.refused, 'invalid-command');
    assert.match(answer.problem!.field, /^identity\.tags\.a/);
    assert.match(answer.problem!.reason, /nests deeper than/);
    assert.equal(leader.node.failed, undefined);
  } finally {
    await leader.close();
  }
});

/** A follower of `leader-1`, whose peer network answers forwarded writes with `answer` and encodes what it sends. */
function follower(answer: ForwardedResult, failed?: Error) {
  const sent: unknown[] = [];
  const node = { failed, isLeader: () => false, leader: () => 'leader-1', appliedIndex: () => 0, waitForApplied: async () => undefined } as unknown as RaftNode;
  const peers = {
    request: async (_to: string, body: unknown) => {
      // What the channel does with a request: encode it as a frame.
      JSON.stringify(body);
      sent.push(body);
      return answer;
    },
  } as unknown as PeerNetwork;
  const proposer = new ClusterProposer(node, { propose: () => Promise.reject(new Error('not the leader')), appliedIndex: () => 0, close: async () => undefined }, peers, 2000);
  return { sent, writer: new ModelWriter(proposer) };
}

test('a follower refuses a command it cannot forward as INVALID_FIELD, without sending anything', async () => {
  const { sent, writer } = follower({ index: 1, result: { ok: true } });
  const deep = await refusal(writer.write(create('deep', nested(20_000))));
  assert.equal(deep.code, 'INVALID_FIELD');
  const peers = await refusal(writer.write(create('peers', nested(200))));
  assert.equal(peers.code, 'INVALID_FIELD');
  assert.deepEqual(sent, []);
});

test("a follower passes on the leader's refusal of a bad command as INVALID_FIELD, not as CLUSTER_NO_LEADER", async () => {
  const problem = { field: 'identity.tags', reason: 'the command nests deeper than 120 levels of objects and arrays' };
  const { writer } = follower({ refused: 'invalid-command', message: 'proposal refused: invalid-command', problem });
  const error = await refusal(writer.write(create('x')));
  assert.equal(error.code, 'INVALID_FIELD');
  assert.deepEqual(error.cause, problem);
});

test('a failed leader makes a follower answer CLUSTER_NO_LEADER; a failed node answers CONTROLLER_UNAVAILABLE itself', async () => {
  const viaFailedLeader = follower({ refused: 'storage', message: 'raft storage failed: EIO' });
  assert.equal((await refusal(viaFailedLeader.writer.write(create('x')))).code, 'CLUSTER_NO_LEADER');
  const failed = follower({ index: 1, result: { ok: true } }, new Error('EIO: i/o error, write'));
  const error = await refusal(failed.writer.write(create('x')));
  assert.equal(error.code, 'CONTROLLER_UNAVAILABLE');
  assert.deepEqual(failed.sent, []);
});
