import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peerFrameLimits } from '../../../common/framing/frame-limits.ts';
import { commandLimits, encodeCommand } from './command-encoding.ts';
import { entryJson, normalEntryWithJson } from './entry-json.ts';
import { RaftCore } from './raft-core.ts';
import { ProposalRefused } from './types.ts';

/** `{a:{a:…{}}}` with `depth` objects, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < depth; i++) {
    const next: Record<string, unknown> = {};
    at.a = next;
    at = next;
  }
  return root;
}

const refusal = (command: unknown, limits = commandLimits) => {
  const encoded = encodeCommand(command, limits);
  assert.equal(encoded.ok, false, 'expected a refusal');
  return (encoded as { problem: { field: string; reason: string } }).problem;
};

test('a command is encoded once, to exactly the text JSON.stringify gives, and its entry carries it', () => {
  const command = { type: 'identity.create', identity: { id: 'i1', name: 'ünï', tags: { a: [1, { b: null }] } } };
  const encoded = encodeCommand(command);
  assert.ok(encoded.ok);
  assert.equal(encoded.json, JSON.stringify(command));
  const entry = normalEntryWithJson(7, 3, command, encoded.json);
  assert.equal(entryJson(entry), JSON.stringify({ index: 7, term: 3, type: 'normal', data: command }));
  assert.deepEqual(Object.keys(entry), ['index', 'term', 'type', 'data']);
});

test('every command JSON cannot encode is refused with its own reason, never thrown', () => {
  assert.match(refusal({ type: 'x', tags: nested(20_000) }).reason, /nests too deeply/);
  const cyclic: Record<string, unknown> = { type: 'x' };
  cyclic.self = cyclic;
  assert.match(refusal(cyclic).reason, /circular reference/);
  assert.match(refusal({ type: 'x', n: 10n }).reason, /BigInt/);
  assert.match(refusal(undefined).reason, /not a JSON value/);
  assert.match(refusal({ toJSON: () => { throw new Error('boom'); } }).reason, /cannot be encoded as JSON/);
});

test('a command the peer frames would refuse is refused here, with the path to where it passes the limit', () => {
  // Encodable, but an append frame carrying it would nest past the peers' frame depth limit.
  assert.ok(commandLimits.maxDepth + 5 <= peerFrameLimits.maxDepth!, 'an append of a command at the limit fits a peer frame');
  const deep = refusal({ type: 'identity.create', identity: { tags: nested(200) } });
  assert.equal(deep.field, 'identity.tags.a.a.a.a.a.a.a.a.a.a.a.a.a.a');
  assert.match(deep.reason, new RegExp(`deeper than ${commandLimits.maxDepth} levels`));
  assert.ok(encodeCommand({ type: 'x', t: nested(commandLimits.maxDepth - 1) }).ok, 'exactly at the depth limit passes');

  const small = { maxBytes: 1000, maxDepth: 8, maxMembers: 50 };
  assert.match(refusal({ type: 'x', ids: Array.from({ length: 60 }, (_, i) => i) }, small).reason, /more than 50 keys and items/);
  assert.match(refusal({ type: 'x', blob: 'é'.repeat(600) }, small).reason, /is 1\d{3} bytes as JSON, over the 1000-byte limit/);
  assert.ok(encodeCommand({ type: 'x', blob: 'e'.repeat(900) }, small).ok);
  // A huge key in the path is cut, so the refusal never echoes megabytes back.
  assert.ok(refusal({ type: 'x', ['k'.repeat(10_000)]: nested(20) }, small).field.length < 100);
});

test('the raft core refuses such a command before it enters the log, and goes on', () => {
  const core = new RaftCore({ id: 'a', electionTicks: 10, heartbeatTicks: 2, random: () => 0.5, bootstrap: { voters: ['a'], nonVoters: [] } });
  core.campaign();
  assert.equal(core.currentRole, 'leader');
  const before = core.log.lastIndex();
  assert.throws(() => core.propose({ type: 'x', tags: nested(20_000) }), (error: unknown) => error instanceof ProposalRefused && error.reason === 'invalid-command' && /nests too deeply/.test(error.problem!.reason));
  assert.equal(core.log.lastIndex(), before);
  const placed = core.propose({ type: 'ok' });
  assert.equal(placed.index, before + 1);
  assert.equal(entryJson(core.log.entry(placed.index)!), JSON.stringify({ index: placed.index, term: placed.term, type: 'normal', data: { type: 'ok' } }));
});
