import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppliedChanges } from '../model/model-state-machine.ts';
import type { Row } from '../store/entity-table.ts';
import { apiSessionEvents } from './api-session-events.ts';

const session = (id: string) => ({ id, tokenHash: 'f00d', identityId: 'ident-1', ipAddress: '10.0.0.7', authMethod: 'password' }) as unknown as Row;
const context = { controllerId: 'ctrl1', now: () => Date.parse('2026-11-24T04:00:00.000Z') };

test('a created and a deleted API session each make an event in the real shape, without the token or its hash', () => {
  const applied = {
    index: 42,
    command: { type: 'apiSession.create' },
    changes: [
      { eventType: 'created', entityType: 'apiSessions', id: 's1', finalState: session('s1') },
      { eventType: 'updated', entityType: 'apiSessions', id: 's0', initialState: session('s0'), finalState: session('s0') },
      { eventType: 'created', entityType: 'identities', id: 'ident-2', finalState: { id: 'ident-2' } as unknown as Row },
      { eventType: 'deleted', entityType: 'apiSessions', id: 's2', initialState: session('s2') },
    ],
  } as unknown as AppliedChanges;
  const events = apiSessionEvents(applied, context);
  const common = { namespace: 'apiSession', event_src_id: 'ctrl1', timestamp: '2026-11-24T04:00:00.000Z', type: 'legacy', identity_id: 'ident-1', ip_address: '10.0.0.7', raftIndex: 42 };
  assert.deepEqual(events, [
    { ...common, event_type: 'created', id: 's1' },
    { ...common, event_type: 'deleted', id: 's2' },
  ]);
  assert.ok(!JSON.stringify(events).includes('f00d'), 'no token hash');
  assert.deepEqual(apiSessionEvents({ ...applied, changes: [] }, context), []);
});
