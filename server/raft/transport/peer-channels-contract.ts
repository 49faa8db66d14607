// The behaviour every PeerChannels (PeerNetwork, and WorkerPeers mirroring one on the raft thread) must show to the
// cluster's services, registered as node:test cases so each implementation runs the same suite against its own
// harness of real controllers' channels over TLS on loopback: peers seen connecting and going (the list already
// true when the event is heard), requests answered by the other side's handler or failed with its error, the
// caller's timeout and an unknown peer refused in words, probes answered with the hello at an address, and the
// certificates peers presented.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeId } from '../core/types.ts';
import type { PeerChannels } from './peer-network.ts';

export interface PeerChannelsMember {
  readonly channels: PeerChannels;
  /** Where its channels listen (`tls:127.0.0.1:<port>`). */
  readonly address: string;
  /** Stops its channels for good, as a controller that exits would. */
  stop(): Promise<void>;
}

export interface PeerChannelsHarness {
  /** Starts one member per id, each knowing all of them as the members of its cluster, none yet connected. */
  start(ids: readonly NodeId[]): Promise<Map<NodeId, PeerChannelsMember>>;
  /** Stops whatever is still running. */
  cleanup(): Promise<void>;
}

const deadlineMs = 5000;

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function peerChannelsContract(name: string, makeHarness: () => PeerChannelsHarness): void {
  const withMembers = (ids: readonly NodeId[], fn: (members: Map<NodeId, PeerChannelsMember>) => Promise<void>) => async () => {
    const harness = makeHarness();
    try {
      await fn(await harness.start(ids));
    } finally {
      await harness.cleanup();
    }
  };

  describe(`${name} (PeerChannels contract)`, () => {
    test('a request reaches the other member\'s handler with the caller\'s hello and resolves with its answer', withMembers(['a', 'b'], async (members) => {
      const a = members.get('a')!;
      const b = members.get('b')!;
      b.channels.onRequest(async (from, body) => ({ echoed: body, from: from.id, address: from.address }));
      assert.deepEqual(await a.channels.request('b', { type: 'state', n: 1 }, 3000), { echoed: { type: 'state', n: 1 }, from: 'a', address: a.address });
      assert.equal(a.channels.self.id, 'a');
    }));

    test('a handler\'s error comes back as the rejection\'s message', withMembers(['a', 'b'], async (members) => {
      members.get('b')!.channels.onRequest(async () => {
        throw new Error('unknown cluster request');
      });
      await assert.rejects(members.get('a')!.channels.request('b', { type: 'bad' }, 3000), /unknown cluster request/);
    }));

    test('a request not answered in time is refused with the timeout, one for an unknown peer at once', withMembers(['a', 'b'], async (members) => {
      members.get('b')!.channels.onRequest(() => new Promise(() => undefined));
      const started = Date.now();
      await assert.rejects(members.get('a')!.channels.request('b', { type: 'slow' }, 200), /did not answer within 200 ms/);
      assert.ok(Date.now() - started < 3000, 'bounded by the timeout');
      await assert.rejects(members.get('a')!.channels.request('nobody', { type: 'state' }, 3000), /no channel to nobody/);
    }));

    test('peers are seen connecting with their hello and certificate, and the list is true when the event is heard', withMembers(['a', 'b'], async (members) => {
      const a = members.get('a')!;
      const b = members.get('b')!;
      const heard: Array<[string, string, boolean]> = [];
      b.channels.onPeerEvent((event, peer) => heard.push([event, peer.id, b.channels.isConnected(peer.id)]));
      b.channels.onRequest(async () => 'ok');
      await a.channels.request('b', { type: 'state' }, 3000);
      await until('b hears a connect', () => heard.length > 0);
      assert.deepEqual(heard[0], ['connected', 'a', true]);
      await until('a listed as connected at b', () => b.channels.peers().some((peer) => peer.id === 'a' && peer.connected));
      const listed = b.channels.peers().find((peer) => peer.id === 'a')!;
      assert.equal(listed.address, a.address);
      assert.equal(listed.version, 'v1.0.0');
      await until('a\'s certificate at b', () => b.channels.presentedCertificates().length === 1);
      assert.match(b.channels.presentedCertificates()[0]!, /^-----BEGIN CERTIFICATE-----/);
    }));

    test('a member that stops is seen going: the event is heard with the list showing it gone', withMembers(['a', 'b'], async (members) => {
      const a = members.get('a')!;
      const b = members.get('b')!;
      const heard: Array<[string, string, boolean]> = [];
      b.channels.onPeerEvent((event, peer) => heard.push([event, peer.id, b.channels.isConnected(peer.id)]));
      b.channels.onRequest(async () => 'ok');
      await a.channels.request('b', { type: 'state' }, 3000);
      await until('a connected at b', () => b.channels.isConnected('a'));
      await a.stop();
      await until('b hears a go', () => heard.some(([event]) => event === 'disconnected'));
      assert.deepEqual(heard.find(([event]) => event === 'disconnected'), ['disconnected', 'a', false]);
      await until('a listed as not connected at b', () => b.channels.peers().some((peer) => peer.id === 'a' && !peer.connected));
    }));

    test('a probe returns the hello at an address, and fails in words where nothing answers', withMembers(['a', 'b'], async (members) => {
      const b = members.get('b')!;
      const hello = await members.get('a')!.channels.probe(b.address, 3000);
      assert.deepEqual([hello.id, hello.address, hello.version], ['b', b.address, 'v1.0.0']);
      await b.stop();
      await assert.rejects(members.get('a')!.channels.probe(b.address, 1000), new RegExp(`could not reach a controller at ${b.address}`));
    }));
  });
}
