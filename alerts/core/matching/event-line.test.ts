import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseClusterEvent, parseEntityChange } from './event-line.ts';

describe('parseClusterEvent', () => {
  it('reads the event type, timestamp, peers with their preferred flag, and leaderId', () => {
    assert.deepEqual(
      parseClusterEvent(
        '{"namespace":"cluster","event_src_id":"ctrl1","timestamp":"2026-11-22T00:51:18.961Z","eventType":"peer.connected","peers":[{"id":"ctrl2","addr":"tls:h:1","version":"v1","apiAddresses":null,"isPreferredLeader":true},{"addr":"no id"}]}',
      ),
      { ok: true, value: { eventType: 'peer.connected', at: Date.parse('2026-11-22T00:51:18.961Z'), peers: [{ id: 'ctrl2', isPreferredLeader: true }] } },
    );
    assert.deepEqual(parseClusterEvent('{"namespace":"cluster","eventType":"state.has_leader","leaderId":"ctrl3"}'), {
      ok: true,
      value: { eventType: 'state.has_leader', peers: [], leaderId: 'ctrl3' },
    });
  });

  it('refuses what is not a cluster event', () => {
    assert.deepEqual(parseClusterEvent('{"namespace":"entityChange","eventType":"created"}'), { ok: false, reason: 'not-cluster-event' });
    assert.deepEqual(parseClusterEvent('{"namespace":"cluster"}'), { ok: false, reason: 'no-event-type' });
    assert.deepEqual(parseClusterEvent('{"namespace":"cluster",'), { ok: false, reason: 'not-json' });
  });
});

describe('parseEntityChange', () => {
  it('takes raftIndex, or OpenZiti\'s metadata.raft_index', () => {
    assert.deepEqual(parseEntityChange('{"namespace":"entityChange","timestamp":"2026-11-21T23:50:00.259Z","raftIndex":8,"metadata":{"raft_index":8}}'), {
      ok: true,
      value: { raftIndex: 8, at: Date.parse('2026-11-21T23:50:00.259Z') },
    });
    assert.deepEqual(parseEntityChange('{"namespace":"entityChange","metadata":{"raft_index":12}}'), { ok: true, value: { raftIndex: 12 } });
  });

  it('refuses an event without a usable raft index', () => {
    assert.deepEqual(parseEntityChange('{"namespace":"entityChange","raftIndex":"8"}'), { ok: false, reason: 'no-raft-index' });
    assert.deepEqual(parseEntityChange('{"namespace":"entityChange","raftIndex":-1}'), { ok: false, reason: 'no-raft-index' });
    assert.deepEqual(parseEntityChange('{"namespace":"apiSession","raftIndex":3}'), { ok: false, reason: 'not-entity-change' });
  });
});
