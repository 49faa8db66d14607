// Links seal every circuit byte with the cipher suite they prefer, AES-128-GCM, at either end: a dialer offers it
// first (a listener taking the dialer's order, as Go's TLS servers do, picks it), and a listener picks it whatever order the dialer lists.
import assert from 'node:assert/strict';
import { DEFAULT_CIPHERS } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { LinkManager, type LinkManagerTuning } from './link-manager.ts';
import { backoff, createTestPki, linkRouterConfig, linkTestClient, scriptedLinkListener, waitFor, type TestPki } from './link-test-support.ts';

const fast: LinkManagerTuning = { timing: { heartbeatIntervalMs: 50, unresponsiveTimeoutMs: 400 }, dialTimeoutMs: 2_000, handshakeTimeoutMs: 2_000 };

describe('link TLS cipher suites', () => {
  let pki: TestPki;
  const closers: Array<() => unknown> = [];

  before(async () => {
    pki = await createTestPki();
  });
  after(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await pki.dispose();
  });

  it("Node's own default would be AES-256-GCM (what this preference changes)", () => {
    assert.equal(DEFAULT_CIPHERS.split(':')[0], 'TLS_AES_256_GCM_SHA384');
  });

  it('a link listener picks AES-128-GCM for a dialer that lists AES-256-GCM first', async () => {
    const manager = new LinkManager({ config: linkRouterConfig({ listener: { groups: ['default'] } }), routerId: 'router-b', tls: await pki.routerTls('router-b'), logger: createMemoryLogger('debug') }, fast);
    await manager.start();
    closers.push(() => manager.stop());
    const port = Number(manager.listenerInfos()[0]!.advertise.split(':').at(-1));
    const client = await linkTestClient(port, await pki.routerTls('router-a'));
    closers.push(() => client.destroy());
    assert.equal(client.cipher, 'TLS_AES_128_GCM_SHA256');
  });

  it("a link dialer offers AES-128-GCM first: a listener that takes the dialer's order (as Go's do) seals with it", async () => {
    const scripted = await scriptedLinkListener(await pki.routerTls('router-b'), 'router-b', () => 'welcome');
    closers.push(scripted.close);
    const logger = createMemoryLogger('debug');
    const manager = new LinkManager({ config: linkRouterConfig({ dialer: { split: true, healthyDialBackoff: backoff(10_000, 1, 10_000) } }), routerId: 'router-a', tls: await pki.routerTls('router-a'), logger }, fast);
    await manager.start();
    closers.push(() => manager.stop());
    manager.knownRouters([{ id: 'router-b', name: 'router-b', linkListeners: [{ binding: 'transport', advertise: `tls:127.0.0.1:${scripted.port}`, groups: [] }] }]);
    await waitFor('the link up', () => manager.links().length === 1);
    assert.deepEqual(scripted.ciphers, ['TLS_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'], 'both connections of the split link');
  });
});
