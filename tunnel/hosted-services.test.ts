import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EdgeService } from '../sdk/controller-client.ts';
import { hostTarget } from './hosted-services.ts';

const service = (config: Record<string, unknown>): EdgeService => ({ id: 's', name: 's', encryptionRequired: true, permissions: ['Bind'], config });

describe('the host.v1 target of a hosted service', () => {
  it('is the tcp address and port of its host.v1 config', () => {
    assert.deepEqual(hostTarget(service({ 'host.v1': { protocol: 'tcp', address: '127.0.0.1', port: 8080 } })), { host: '127.0.0.1', port: 8080 });
  });

  it('says why there is none: no config, another protocol, forwarded fields instead of a fixed address and port', () => {
    assert.deepEqual(hostTarget(service({})), { reason: 'no host.v1 config' });
    assert.deepEqual(hostTarget(service({ 'host.v1': { protocol: 'udp', address: 'x', port: 53 } })), { reason: 'host.v1 protocol "udp" is not tcp' });
    assert.deepEqual(hostTarget(service({ 'host.v1': { protocol: 'tcp', forwardAddress: true, port: 80 } })), { reason: 'host.v1 names no fixed address and port' });
  });
});
