import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkPeerPolicyOf } from './link-peer-policy.ts';

const router = (id: string, disabled?: boolean) => ({ id, name: id, roleAttributes: [], isTunnelerEnabled: false, ...(disabled === undefined ? {} : { disabled }) });

test('a link peer must be an edge router of the model and not disabled', () => {
  const policy = linkPeerPolicyOf({ services: [], identities: [], edgeRouters: [router('r1'), router('r2', true), router('r3', false)] });
  assert.equal(policy('r1'), undefined);
  assert.equal(policy('r3'), undefined);
  assert.equal(policy('r2'), 'the router is disabled');
  assert.equal(policy('gone'), 'the router is not an edge router of the network (deleted)');
});

test('a model without its router list (an older controller) refuses no one', () => {
  assert.equal(linkPeerPolicyOf({ services: [], identities: [] })('anyone'), undefined);
});
