import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EdgeModelPolicy } from './control-messages.ts';
import { hostedServices, hostV1Address } from './hosted-services.ts';

const bind = (identityRoles: string[], serviceRoles: string[], semantic: 'AllOf' | 'AnyOf' = 'AnyOf'): EdgeModelPolicy => ({ id: `p${identityRoles}${serviceRoles}`, type: 'Bind', semantic, identityRoles, serviceRoles });
const host = (address: string, port = 80) => ({ protocol: 'tcp', address, port });

test('a host.v1 with a fixed protocol, address and port gives the terminator address; a forwarding one gives none', () => {
  assert.equal(hostV1Address(host('127.0.0.1', 8080)), 'tcp:127.0.0.1:8080');
  assert.equal(hostV1Address({ protocol: 'udp', address: 'echo.internal', port: 7 }), 'udp:echo.internal:7');
  assert.equal(hostV1Address({ protocol: 'tcp', address: '::1', port: 443 }), 'tcp:[::1]:443');
  assert.equal(hostV1Address({ forwardProtocol: true, allowedProtocols: ['tcp'], address: 'a', port: 1 }), undefined);
  assert.equal(hostV1Address({ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['10.0.0.0/8'], port: 1 }), undefined);
  assert.equal(hostV1Address(undefined), undefined);
  assert.equal(hostV1Address({ protocol: 'tcp', address: 'x'.repeat(2000), port: 1 }), undefined, 'longer than a terminator address may be');
});

test('a tunneler-enabled router hosts the services a Bind policy grants it that carry a host.v1 address', () => {
  const router = { id: 'r1', roleAttributes: ['hosts'], isTunnelerEnabled: true };
  const services = [
    { id: 's1', roleAttributes: ['web'], hostV1: host('10.0.0.1') },
    { id: 's2', roleAttributes: ['web'] },
    { id: 's3', roleAttributes: ['db'], hostV1: host('10.0.0.3', 5432) },
    { id: 's4', roleAttributes: ['web'], hostV1: host('10.0.0.4') },
  ];
  const policies: EdgeModelPolicy[] = [bind(['#hosts'], ['#web']), { ...bind(['#all'], ['#db']), type: 'Dial' }, bind(['#others'], ['@s4'])];
  assert.deepEqual([...hostedServices(router, services, policies)], [['s1', 'tcp:10.0.0.1:80'], ['s4', 'tcp:10.0.0.4:80']], 's2 has no host.v1, s3 is only Dial');
  assert.deepEqual([...hostedServices(router, services, [bind(['@r1'], ['@s3'])])], [['s3', 'tcp:10.0.0.3:5432']], 'the router is selected by its id');
  assert.deepEqual([...hostedServices(router, services, [bind(['#hosts', '#other'], ['#web'], 'AllOf')])], [], 'AllOf needs every role');
  assert.equal(hostedServices({ ...router, isTunnelerEnabled: false }, services, policies).size, 0, 'a router without tunneling has no identity to Bind with');
  assert.equal(hostedServices(undefined, services, policies).size, 0);
});
