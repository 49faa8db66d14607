import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oidcTokenEventRecord } from './oidc-token-events.ts';

const context = { controllerId: 'ctrl2', now: () => Date.parse('2026-11-29T14:30:00.000Z') };

test('issued, refreshed and exchanged tokens are apiSession events of type jwt, as OpenZiti writes them', () => {
  const issued = oidcTokenEventRecord({ kind: 'issued', grant: 'authorization_code', identityId: 'id1', apiSessionId: 'as1', method: 'cert' }, context);
  assert.deepEqual(issued, {
    namespace: 'apiSession',
    event: {
      namespace: 'apiSession',
      event_src_id: 'ctrl2',
      timestamp: '2026-11-29T14:30:00.000Z',
      event_type: 'created',
      id: 'as1',
      type: 'jwt',
      identity_id: 'id1',
      ip_address: '',
      grant: 'authorization_code',
      auth_method: 'cert',
    },
  });
  assert.equal(oidcTokenEventRecord({ kind: 'refreshed', grant: 'refresh_token', identityId: 'id1', apiSessionId: 'as1' }, context).event.event_type, 'refreshed');
  const exchanged = oidcTokenEventRecord({ kind: 'refreshed', grant: 'urn:ietf:params:oauth:grant-type:token-exchange', identityId: 'id1', apiSessionId: 'as1' }, context).event;
  assert.equal(exchanged.event_type, 'exchanged');
  assert.equal(exchanged.grant, 'token_exchange');
});

test('a revocation is a revoked apiSession event naming what was revoked', () => {
  const revoked = oidcTokenEventRecord({ kind: 'revoked', grant: 'end_session', apiSessionId: 'as1' }, context);
  assert.equal(revoked.namespace, 'apiSession');
  assert.equal(revoked.event.event_type, 'revoked');
  assert.equal(revoked.event.grant, 'end_session');
  assert.equal(revoked.event.identity_id, '');
});

test('a refused refresh is an authentication failure of type oidc with the grant and reason', () => {
  const refused = oidcTokenEventRecord({ kind: 'refused', grant: 'refresh_token', reason: 'unknown signing key' }, context);
  assert.equal(refused.namespace, 'authentication');
  assert.equal(refused.event.event_type, 'fail');
  assert.equal(refused.event.type, 'oidc');
  assert.equal(refused.event.success, false);
  assert.equal(refused.event.reason, 'refresh_token refused: unknown signing key');
});
