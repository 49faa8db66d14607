// The behaviour every RaftTransport (in-process, simulated, TLS peer channels) must show to the raft node, registered
// as node:test cases so each implementation runs the same suite against its own harness: a message reaches the
// handler of the member it names, whole and never inside the sender's call, in the order sent between two members;
// a message for nobody is dropped quietly; after close a member hears nothing more and sending to it is harmless.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Message, NodeId } from '../core/types.ts';
import type { RaftTransport } from './raft-transport.ts';

export interface TransportHarness {
  /** One transport per member id (the same object for several ids where the transport serves a whole process). */
  transport(id: NodeId): RaftTransport;
  /** Moves what is in flight (a simulated network delivers only when told); a real one needs nothing. */
  pump(): void;
  /** Closes whatever is still open. */
  cleanup(): Promise<void>;
}

/** How long a quiet network is watched before concluding nothing more arrives. */
const quietMs = 300;
const deadlineMs = 5000;

const heartbeat = (from: NodeId, to: NodeId, commit: number): Message => ({ type: 'Heartbeat', from, to, term: 3, commit });

/** The fields each kind of message has (core/types.ts): a transport may attach more (the TLS one keeps the
 * received entries' text lengths), and the contract is about these. */
const fieldsOf: Record<Message['type'], readonly string[]> = {
  PreVote: ['lastIndex', 'lastTerm', 'transfer'],
  Vote: ['lastIndex', 'lastTerm', 'transfer'],
  PreVoteResp: ['reject'],
  VoteResp: ['reject'],
  Append: ['prevIndex', 'prevTerm', 'entries', 'commit'],
  AppendResp: ['reject', 'index', 'rejectHint', 'hintTerm', 'lost'],
  Heartbeat: ['commit', 'refill'],
  HeartbeatResp: [],
  Snapshot: ['snapshot'],
  TimeoutNow: [],
};

/** The message's content as plain JSON: its own fields only. */
function plain(message: Message): unknown {
  const fields = ['type', 'from', 'to', 'term', ...fieldsOf[message.type]];
  const record = message as unknown as Record<string, unknown>;
  return JSON.parse(JSON.stringify(Object.fromEntries(fields.filter((field) => record[field] !== undefined).map((field) => [field, record[field]]))));
}

async function pumpUntil(harness: TransportHarness, what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    harness.pump();
    if (done()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function pumpFor(harness: TransportHarness, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    harness.pump();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function raftTransportContract(name: string, makeHarness: (ids: readonly NodeId[]) => Promise<TransportHarness>): void {
  const withMembers = (ids: readonly NodeId[], fn: (harness: TransportHarness, heard: Map<NodeId, Message[]>) => Promise<void>) => async () => {
    const harness = await makeHarness(ids);
    const heard = new Map<NodeId, Message[]>(ids.map((id) => [id, []]));
    try {
      for (const id of ids) harness.transport(id).listen(id, (message) => heard.get(id)!.push(message));
      await fn(harness, heard);
    } finally {
      await harness.cleanup();
    }
  };

  describe(`${name} (RaftTransport contract)`, () => {
    test('every kind of message reaches the member it names whole, and never inside the sender\'s call', withMembers(['a', 'b'], async (harness, heard) => {
      const messages: Message[] = [
        { type: 'PreVote', from: 'a', to: 'b', term: 4, lastIndex: 9, lastTerm: 3, transfer: true },
        { type: 'Append', from: 'a', to: 'b', term: 4, prevIndex: 9, prevTerm: 3, commit: 8, entries: [
          { index: 10, term: 4, type: 'noop', data: null },
          { index: 11, term: 4, type: 'normal', data: { type: 'identity.create', payload: { name: 'ü ✓', tags: ['x'], n: 1.5 } } },
          { index: 12, term: 4, type: 'config', data: { kind: 'add', id: 'c', voter: false, address: 'tls:127.0.0.1:1' } },
        ] },
        { type: 'AppendResp', from: 'a', to: 'b', term: 4, reject: true, index: 12, rejectHint: 7, hintTerm: 2 },
        heartbeat('a', 'b', 12),
        { type: 'Snapshot', from: 'a', to: 'b', term: 4, snapshot: { meta: { index: 12, term: 4, configuration: { voters: ['a', 'b'], nonVoters: [] } }, data: { values: [['k', 'v']] } } },
        { type: 'TimeoutNow', from: 'a', to: 'b', term: 4 },
      ];
      for (const message of messages) {
        harness.transport('a').send(message);
        assert.equal(heard.get('b')!.length, 0, 'not delivered inside send');
      }
      await pumpUntil(harness, 'every message at b', () => heard.get('b')!.length >= messages.length);
      const byType = (list: readonly Message[]) => [...list].map(plain).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
      assert.deepEqual(byType(heard.get('b')!), byType(messages));
      assert.deepEqual(heard.get('a'), [], 'nothing comes back to the sender');
    }));

    test('messages between two members arrive in the order sent', withMembers(['a', 'b'], async (harness, heard) => {
      for (let i = 1; i <= 200; i++) harness.transport('a').send(heartbeat('a', 'b', i));
      await pumpUntil(harness, '200 heartbeats at b', () => heard.get('b')!.length >= 200);
      assert.deepEqual(heard.get('b')!.map((message) => (message as { commit: number }).commit), Array.from({ length: 200 }, (_, i) => i + 1));
    }));

    test('each member hears only what is addressed to it, from every other member', withMembers(['a', 'b', 'c'], async (harness, heard) => {
      for (const from of ['a', 'b', 'c']) for (const to of ['a', 'b', 'c']) if (from !== to) harness.transport(from).send(heartbeat(from, to, 1));
      await pumpUntil(harness, 'two messages at each member', () => [...heard.values()].every((list) => list.length >= 2));
      await pumpFor(harness, 50);
      for (const [id, list] of heard) {
        assert.deepEqual(list.map((message) => message.to), [id, id]);
        assert.deepEqual(list.map((message) => message.from).sort(), ['a', 'b', 'c'].filter((other) => other !== id));
      }
    }));

    test('a message for a member that is not there is dropped without an error, and the rest still flow', withMembers(['a', 'b'], async (harness, heard) => {
      assert.doesNotThrow(() => harness.transport('a').send(heartbeat('a', 'nobody', 1)));
      harness.transport('a').send(heartbeat('a', 'b', 2));
      await pumpUntil(harness, 'the message at b', () => heard.get('b')!.length >= 1);
      assert.deepEqual(heard.get('b')!.map(plain), [plain(heartbeat('a', 'b', 2))]);
    }));

    test('after close a member hears nothing more, and sending to it does not throw', withMembers(['a', 'b'], async (harness, heard) => {
      harness.transport('a').send(heartbeat('a', 'b', 1));
      await pumpUntil(harness, 'the first message at b', () => heard.get('b')!.length >= 1);
      harness.transport('b').close('b');
      await pumpFor(harness, 50);
      assert.doesNotThrow(() => harness.transport('a').send(heartbeat('a', 'b', 2)));
      await pumpFor(harness, quietMs);
      assert.deepEqual(heard.get('b')!.map((message) => (message as { commit: number }).commit), [1]);
    }));
  });
}
