import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EdgeService } from '../sdk/controller-client.ts';
import { choosePort, parseProxySpecs, ProxySpecError, servicesToOffer } from './proxy-ports.ts';

const service = (name: string, fields: Partial<EdgeService> = {}): EdgeService => ({ id: `${name}-id`, name, encryptionRequired: true, permissions: ['Dial'], config: {}, ...fields });

describe('proxy mode ports', () => {
  it('reads --proxy service:port, the name may hold colons, and refuses a bad port or a service named twice', () => {
    assert.deepEqual([...parseProxySpecs(['echo:8080', 'db:prod:5432'])], [['echo', 8080], ['db:prod', 5432]]);
    for (const bad of ['echo', 'echo:', ':80', 'echo:0', 'echo:65536', 'echo:8o']) assert.throws(() => parseProxySpecs([bad]), ProxySpecError, bad);
    assert.throws(() => parseProxySpecs(['echo:1', 'echo:2']), /named twice/);
  });

  it('takes the --proxy port first, else the first port range of intercept.v1, else says why there is none', () => {
    const intercepted = service('web', { config: { 'intercept.v1': { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 8443, high: 8450 }, { low: 80, high: 80 }] } } });
    assert.deepEqual(choosePort(intercepted, new Map([['web', 9000]])), { port: 9000, source: '--proxy' });
    assert.deepEqual(choosePort(intercepted, new Map()), { port: 8443, source: 'intercept.v1' });
    assert.deepEqual(choosePort(service('bare'), new Map()), { port: undefined, reason: 'no --proxy port and no intercept.v1 config' });
    assert.deepEqual(choosePort(service('odd', { config: { 'intercept.v1': { portRanges: [] } } }), new Map()), { port: undefined, reason: 'its intercept.v1 config names no port' });
  });

  it('offers the services the identity may dial, only those --proxy names when it names any', () => {
    const list = [service('a'), service('b'), service('hosted', { permissions: ['Bind'] })];
    assert.deepEqual(servicesToOffer(list, new Map()).map((s) => s.name), ['a', 'b']);
    assert.deepEqual(servicesToOffer(list, new Map([['b', 1], ['hosted', 2]])).map((s) => s.name), ['b']);
  });
});
