import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authenticationEvent } from './authentication-events.ts';

const context = { controllerId: 'ctrl2', now: () => Date.parse('2026-11-24T04:30:00.000Z') };
const common = { namespace: 'authentication', event_src_id: 'ctrl2', timestamp: '2026-11-24T04:30:00.000Z', remote_address: '192.0.2.10', improper_client_cert_chain: false };

test('a password login is a success event of type updb with the identity, authenticator and policy', () => {
  const event = authenticationEvent({ method: 'password', success: true, reason: '', identityId: 'id42', authenticatorId: 'auth01', authPolicyId: 'default', remoteAddress: '192.0.2.10' }, context);
  assert.deepEqual(event, { ...common, event_type: 'success', type: 'updb', authenticator_id: 'auth01', external_jwt_signer_id: '', identity_id: 'id42', auth_policy_id: 'default', success: true, reason: '' });
});

test('a refused login is a fail event with its reason; what was not resolved is empty', () => {
  assert.deepEqual(authenticationEvent({ method: 'cert', success: false, reason: 'no identity has the certificate', remoteAddress: '192.0.2.10' }, context), {
    ...common,
    event_type: 'fail',
    type: 'cert',
    authenticator_id: '',
    external_jwt_signer_id: '',
    identity_id: '',
    auth_policy_id: '',
    success: false,
    reason: 'no identity has the certificate',
  });
});

test('an ext-jwt login names its signer in external_jwt_signer_id, not as the authenticator', () => {
  const event = authenticationEvent({ method: 'ext-jwt', success: true, reason: '', identityId: 'id42', authenticatorId: 'signer7', authPolicyId: 'pol7', remoteAddress: '192.0.2.10' }, context);
  assert.equal(event.type, 'ext-jwt');
  assert.equal(event.authenticator_id, '');
  assert.equal(event.external_jwt_signer_id, 'signer7');
  const refused = authenticationEvent({ method: 'ext-jwt', success: false, reason: 'expired: token expired', signerId: 'signer7', remoteAddress: '192.0.2.10' }, context);
  assert.equal(refused.external_jwt_signer_id, 'signer7');
});
