import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { circuitEvent, readCircuitReport } from './circuit-events.ts';

const context = { controllerId: 'ctrl1', now: () => Date.parse('2026-11-26T07:00:00.000Z') };

describe('circuit events', () => {
  it('a created event carries the path, the dialer and the creation time in nanoseconds', () => {
    const event = circuitEvent({ event: 'created', circuitId: 'c1', serviceId: 's1', clientId: 'r1', terminatorId: 't1', routers: ['r1', 'r2', 'r3'], links: ['l1', 'l2'], creationMs: 2.5 }, context);
    assert.deepEqual(event, {
      namespace: 'circuit',
      event_src_id: 'ctrl1',
      timestamp: '2026-11-26T07:00:00.000Z',
      event_type: 'created',
      circuit_id: 'c1',
      client_id: 'r1',
      service_id: 's1',
      terminator_id: 't1',
      instance_id: '',
      creation_timespan: 2_500_000,
      path: { nodes: ['r1', 'r2', 'r3'], links: ['l1', 'l2'], ingress_id: 'r1', egress_id: 'r3' },
      link_count: 2,
      tags: null,
    });
  });

  it('deleted carries duration and bytes, failed its cause; a refusal has no circuit id', () => {
    const deleted = circuitEvent({ event: 'deleted', circuitId: 'c1', durationMs: 1000, bytesIn: 5, bytesOut: 7 }, context);
    assert.equal(deleted.duration, 1_000_000_000);
    assert.equal(deleted.bytes_in, 5);
    assert.equal(deleted.bytes_out, 7);
    assert.equal('failure_cause' in deleted, false);
    const failed = circuitEvent({ event: 'failed', failureCause: 'NO_DIAL_POLICY', reason: 'no policy' }, context);
    assert.equal(failed.circuit_id, '');
    assert.equal(failed.failure_cause, 'NO_DIAL_POLICY');
    assert.equal(failed.reason, 'no policy');
    assert.equal('duration' in failed, false);
  });

  it('reads a router report, keeping only well-formed fields, and refuses one without a known event', () => {
    assert.deepEqual(readCircuitReport({ event: 'deleted', circuitId: 'c1', routers: ['r1'], durationMs: 5, bytesIn: -1, extra: 'x', reason: 'r'.repeat(5000) }), {
      event: 'deleted',
      circuitId: 'c1',
      routers: ['r1'],
      durationMs: 5,
      reason: 'r'.repeat(1024),
    });
    assert.deepEqual(readCircuitReport({ event: 'pathUpdated', routers: ['r1', 'r4'] }), { event: 'pathUpdated', routers: ['r1', 'r4'] });
    assert.equal(readCircuitReport({ event: 'moved' }), undefined);
    assert.equal(readCircuitReport(null), undefined);
    assert.deepEqual(readCircuitReport({ event: 'created', routers: Array(65).fill('r'), circuitId: 'x'.repeat(600) }), { event: 'created' });
  });
});
