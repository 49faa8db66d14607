import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEventLine } from './event-lines.ts';

test('cluster events as the controllers write them', () => {
  const at = '2026-11-22T00:51:18.961Z';
  assert.deepEqual(parseEventLine(JSON.stringify({ namespace: 'cluster', event_src_id: 'ctrl1', timestamp: at, eventType: 'state.has_leader', index: 2, raftIndex: 2, leaderId: 'ctrl1' }), 'x'), {
    kind: 'cluster',
    event: { at: Date.parse(at), controller: 'ctrl1', eventType: 'state.has_leader', detail: 'leader ctrl1; index 2' },
  });
  const peer = parseEventLine(JSON.stringify({ namespace: 'cluster', timestamp: at, eventType: 'peer.disconnected', peers: [{ id: 'ctrl2', addr: 'tls:127.0.0.1:6263', apiAddresses: null }] }), 'ctrl3');
  assert.deepEqual(peer.kind === 'cluster' && [peer.event.controller, peer.event.detail], ['ctrl3', 'peer ctrl2 (tls:127.0.0.1:6263)'], 'the file\'s controller when the event names none');
  const members = parseEventLine(JSON.stringify({ namespace: 'cluster', timestamp: at, eventType: 'members.changed', index: 5, peers: [{ id: 'ctrl1' }, { id: 'ctrl2' }] }), 'ctrl1');
  assert.equal(members.kind === 'cluster' && members.event.detail, 'members ctrl1, ctrl2; index 5');
});

test('entity change events give their raft index (top level or metadata) and time', () => {
  const at = '2026-11-22T00:50:00.259Z';
  assert.deepEqual(parseEventLine(JSON.stringify({ namespace: 'entityChange', timestamp: at, raftIndex: 8, metadata: { raft_index: 8 } }), 'ctrl1'), { kind: 'entity-change', raftIndex: 8, at: Date.parse(at) });
  assert.deepEqual(parseEventLine(JSON.stringify({ namespace: 'entityChange', timestamp: at, metadata: { raft_index: 9 } }), 'ctrl1'), { kind: 'entity-change', raftIndex: 9, at: Date.parse(at) });
});

test('other namespaces are ignored; malformed lines are reported, never thrown', () => {
  assert.deepEqual(parseEventLine('{"namespace":"apiSession","timestamp":"2026-11-22T00:50:00Z"}', 'c'), { kind: 'ignored' });
  assert.deepEqual(parseEventLine('{"namespace":"cluster"', 'c'), { kind: 'malformed', reason: 'not JSON' });
  assert.deepEqual(parseEventLine('[1,2]', 'c'), { kind: 'malformed', reason: 'not an object' });
  assert.deepEqual(parseEventLine('{"namespace":"cluster","timestamp":"2026-11-22T00:50:00Z"}', 'c'), { kind: 'malformed', reason: 'a cluster event without eventType' });
  assert.deepEqual(parseEventLine('{"namespace":"cluster","eventType":"state.ro"}', 'c'), { kind: 'malformed', reason: 'a cluster event without a timestamp' });
  assert.deepEqual(parseEventLine('{"namespace":"entityChange","timestamp":"2026-11-22T00:50:00Z"}', 'c'), { kind: 'malformed', reason: 'an entity change event without a raft index' });
});
