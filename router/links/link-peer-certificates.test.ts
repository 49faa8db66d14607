// Both ends of a link check the other's certificate, not only its hello: over real TLS, a controller's certificate
// is refused as a dialer and as a listener, a certificate of the right name but not the one the controller reported
// is refused, and a client certificate without a router SPIFFE id is taken only with the reported fingerprint.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { RouterInfo } from '../../common/control-channel/control-messages.ts';
import { fingerprintOf } from '../../common/certificates/presented-certificate.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { LinkManager, type LinkManagerTuning } from './link-manager.ts';
import type { LinkTlsMaterial } from './link-manager-api.ts';
import { backoff, createTestPki, linkRouterConfig, linkTestClient, waitFor, type TestLinkConfig, type TestPki } from './link-test-support.ts';

const fast: LinkManagerTuning = { timing: { heartbeatIntervalMs: 50, unresponsiveTimeoutMs: 400 }, dialTimeoutMs: 2_000, handshakeTimeoutMs: 2_000 };
const notThatRouters = "link refused: the client certificate is not that router's";
const fingerprint = (pem: string) => fingerprintOf(new X509Certificate(pem));

describe('link peers are known by their certificates', () => {
  let pki: TestPki;
  const running: LinkManager[] = [];
  const closers: Array<() => unknown> = [];

  before(async () => {
    pki = await createTestPki();
  });
  after(async () => {
    await Promise.all(running.map((manager) => manager.stop()));
    await Promise.all(closers.map((close) => close()));
    await pki.dispose();
  });

  async function router(id: string, spec: TestLinkConfig, tls: LinkTlsMaterial) {
    const logger = createMemoryLogger('debug');
    const manager = new LinkManager({ config: linkRouterConfig(spec), routerId: id, tls, logger }, fast);
    await manager.start();
    running.push(manager);
    const info = (extra: Partial<RouterInfo> = {}): RouterInfo => ({ id, name: id, linkListeners: manager.listenerInfos(), ...extra });
    const logged = (msg: string) => logger.lines.filter((line) => line.msg === msg);
    const port = () => Number(info().linkListeners[0]!.advertise.split(':').at(-1));
    return { manager, info, logged, port };
  }

  async function stopped(...managers: LinkManager[]): Promise<void> {
    for (const manager of managers) {
      await manager.stop();
      running.splice(running.indexOf(manager), 1);
    }
  }

  const retrying = { healthyDialBackoff: backoff(100, 1, 100) };

  it('a listener refuses a dialer presenting a controller certificate, even when its hello names the same id', async () => {
    const controller = await router('ctrl-1', { dialer: retrying }, await pki.controllerTls('ctrl-1'));
    const b = await router('router-b', { listener: { groups: ['default'] } }, await pki.routerTls('router-b'));
    controller.manager.knownRouters([b.info()]);
    await waitFor('the refusal', () => b.logged(notThatRouters).length >= 1);
    const refusal = b.logged(notThatRouters)[0]!;
    assert.equal(refusal.routerId, 'ctrl-1');
    assert.match(String(refusal.reason), new RegExp(`the certificate is a controller's \\(spiffe://${pki.trustDomain}/controller/ctrl-1\\), not a router's`));
    await waitFor('the dialer to see it refused', () => controller.logged('link dial refused').length >= 1);
    assert.equal(b.manager.links().length, 0);
    assert.equal(controller.manager.links().length, 0);
    await stopped(controller.manager, b.manager);
  });

  it('a dialer refuses a listener presenting a controller certificate, and sends it no hello', async () => {
    const a = await router('router-a', { dialer: { ...retrying, split: false } }, await pki.routerTls('router-a'));
    const controller = await router('ctrl-2', { listener: { groups: ['default'] } }, await pki.controllerTls('ctrl-2'));
    a.manager.knownRouters([controller.info()]);
    await waitFor('the refusal', () => a.logged('link dial refused').length >= 1);
    assert.match(String(a.logged('link dial refused')[0]!.error), /the listener's certificate is not router "ctrl-2"'s: the certificate is a controller's/);
    assert.equal(a.manager.links().length, 0);
    assert.equal(controller.manager.links().length, 0);
    assert.equal(controller.logged('link established').length, 0);
    await stopped(a.manager, controller.manager);
  });

  it('where the controller reported the fingerprints, only those certificates are accepted, at either end', async () => {
    const bTls = await pki.routerTls('router-b');
    const b = await router('router-b', { listener: { groups: ['default'] } }, bTls);
    // Router a as enrolled (its certificates known to the controller), and a second pair of certificates for a
    // that chain to the same CA and carry the same names: taken only until the controller reports a's.
    const enrolled = await pki.routerTls('router-a');
    const other = await pki.routerTls('router-a');
    const rogue = await linkTestClient(b.port(), other);
    closers.push(rogue.destroy);
    b.manager.knownRouters([{ id: 'router-a', name: 'router-a', linkListeners: [], fingerprint: fingerprint(enrolled.certPem), serverFingerprint: fingerprint(enrolled.serverCertPem) }]);
    rogue.send({ type: 'link.hello', routerId: 'router-a', linkId: 'rogue-1', connType: 'single' });
    await waitFor('the rogue connection to be closed', () => rogue.closedAt !== undefined);
    assert.deepEqual(rogue.frames, [], 'no welcome');
    assert.match(String(b.logged(notThatRouters)[0]!.reason), /is not the one router "router-a" enrolled with/);

    const genuine = await linkTestClient(b.port(), enrolled);
    closers.push(genuine.destroy);
    genuine.send({ type: 'link.hello', routerId: 'router-a', linkId: 'genuine-1', connType: 'single' });
    await waitFor('the welcome', () => genuine.frames.length >= 1);
    assert.deepEqual(genuine.frames[0], { type: 'link.welcome', routerId: 'router-b' });
    genuine.destroy();

    // The dialer's side: router-b's server certificate is not the one reported for router-b.
    const a = await router('router-a', { dialer: { ...retrying, split: false } }, enrolled);
    a.manager.knownRouters([b.info({ serverFingerprint: fingerprint(other.serverCertPem) })]);
    await waitFor('the refusal', () => a.logged('link dial refused').length >= 1);
    assert.match(String(a.logged('link dial refused')[0]!.error), /is not the one router "router-b" enrolled with/);
    assert.equal(a.manager.links().length, 0);
    // Told the right one, a links up.
    a.manager.routerConnected(b.info({ serverFingerprint: fingerprint(bTls.serverCertPem) }));
    await waitFor('the link', () => a.manager.links().length === 1);
    await stopped(a.manager, b.manager);
  });

  it('a client certificate without a router SPIFFE id is accepted only with the fingerprint the controller reported', async () => {
    const b = await router('router-b', { listener: { groups: ['default'] } }, await pki.routerTls('router-b'));
    const legacy = await pki.routerTls('router-l', 'router-l', { spiffe: false });
    const unknown = await linkTestClient(b.port(), legacy);
    closers.push(unknown.destroy);
    unknown.send({ type: 'link.hello', routerId: 'router-l', linkId: 'legacy-1', connType: 'single' });
    await waitFor('the connection to be closed', () => unknown.closedAt !== undefined);
    assert.match(String(b.logged(notThatRouters)[0]!.reason), /carries no router SPIFFE id and the controller has reported no fingerprint for router "router-l"/);

    b.manager.routerConnected({ id: 'router-l', name: 'router-l', linkListeners: [], fingerprint: fingerprint(legacy.certPem) });
    const known = await linkTestClient(b.port(), legacy);
    closers.push(known.destroy);
    known.send({ type: 'link.hello', routerId: 'router-l', linkId: 'legacy-2', connType: 'single' });
    await waitFor('the welcome', () => known.frames.length >= 1);
    assert.deepEqual(known.frames[0], { type: 'link.welcome', routerId: 'router-b' });
    known.destroy();
    await stopped(b.manager);
  });
});
