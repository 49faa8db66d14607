import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import type { ListenerConfig } from '../config/router-config.ts';
import { hostsServices, TerminatorSync } from './terminator-sync.ts';

const model = (services: Array<[string, number | undefined]>, bindRoles = ['#web']): EdgeModel => ({
  services: services.map(([id, port]) => ({ id, name: id, roleAttributes: ['web'], configs: port === undefined ? {} : { 'host.v1': { protocol: 'tcp', address: '127.0.0.1', port } } })),
  identities: [],
  servicePolicies: [{ id: 'p', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: bindRoles }],
  edgeRouters: [{ id: 'r1', name: 'r1', roleAttributes: ['hosting'], isTunnelerEnabled: true }],
});

test('any tunnel listener hosts services, whatever its mode; other listeners do not', () => {
  assert.equal(hostsServices([{ binding: 'tunnel', options: { mode: 'host' } }] as ListenerConfig[]), true);
  assert.equal(hostsServices([{ binding: 'tunnel', options: { mode: 'proxy', services: [] } }] as ListenerConfig[]), true);
  assert.equal(hostsServices([{ binding: 'tunnel', options: { mode: 'tproxy' } }] as ListenerConfig[]), true);
  assert.equal(hostsServices([{ binding: 'edge', bind: { protocol: 'tls', host: '0.0.0.0', port: 1 }, options: {} }] as unknown as ListenerConfig[]), false);
});

test('the router sends creates for what it hosts, removes for what it no longer does, and everything again after a welcome', () => {
  const sync = new TerminatorSync('r1', true);
  assert.deepEqual(sync.modelChanged(model([['s1', 81], ['s2', undefined]])), [{ type: 'router.terminator.create', terminators: [{ serviceId: 's1', address: 'tcp:127.0.0.1:81' }] }]);
  assert.deepEqual(sync.welcomed(), [{ type: 'router.terminator.create', terminators: [{ serviceId: 's1', address: 'tcp:127.0.0.1:81' }] }], 'a new channel hears it all again');
  assert.deepEqual(sync.modelChanged(model([['s1', 82], ['s3', 83]])), [
    { type: 'router.terminator.create', terminators: [{ serviceId: 's1', address: 'tcp:127.0.0.1:82' }, { serviceId: 's3', address: 'tcp:127.0.0.1:83' }] },
  ]);
  assert.deepEqual(sync.modelChanged(model([['s1', 82], ['s3', 83]], ['#other'])), [{ type: 'router.terminator.remove', serviceIds: ['s1', 's3'] }], 'the policy no longer grants them');
  assert.deepEqual(new TerminatorSync('r1', false).modelChanged(model([['s1', 81]])), [], 'without a tunnel listener nothing is hosted');
  assert.deepEqual(new TerminatorSync('r2', true).modelChanged(model([['s1', 81]])), [], 'another router is not this one');
});

test('creates come in messages of at most 1000 terminators', () => {
  const many = model(Array.from({ length: 2500 }, (_, i) => [`s${String(i).padStart(4, '0')}`, 1000 + i] as [string, number]));
  const messages = new TerminatorSync('r1', true).modelChanged(many);
  assert.deepEqual(
    messages.map((message) => (message.type === 'router.terminator.create' ? message.terminators.length : -1)),
    [1000, 1000, 500],
  );
});
