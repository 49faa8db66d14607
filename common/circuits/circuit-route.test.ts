import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { suiteTestPkis } from '../../router/links/suite-test-pkis.ts';
import { RouteSigner, RouteVerifier, type CircuitRoute } from './circuit-route.ts';

const pkis = suiteTestPkis();

const route: CircuitRoute = {
  circuitId: 'c1a2b3c4d5e6f7g8',
  serviceId: 'svc',
  serviceName: 'echo',
  identityId: 'r1',
  routers: ['r1', 'r2', 'r3'],
  links: ['l1', 'l2'],
  terminator: { id: 't1', routerId: 'r3', address: 'tcp:127.0.0.1:8080' },
  controllerId: 'ctrl1',
  egressFingerprint: '0123456789abcdef0123456789abcdef01234567',
  issuedAt: Date.now(),
};

describe('signed circuit routes', () => {
  it('a route signed by a controller of the CA verifies, and names its signer', async () => {
    const tls = await pkis.pki.controllerTls('ctrl1');
    const signed = new RouteSigner(tls.keyPem, tls.certPem).sign(route);
    const verdict = new RouteVerifier(pkis.pki.caPem).verify(signed, Date.now());
    assert.ok(verdict.ok, !verdict.ok ? verdict.reason : '');
    assert.deepEqual(verdict.route, route);
    assert.match(verdict.signer.subjectAltName ?? '', /controller\/ctrl1/);
  });

  it('refuses a changed text, a signature by another key, a signer of another CA and garbage', async () => {
    const tls = await pkis.pki.controllerTls('ctrl1');
    const signed = new RouteSigner(tls.keyPem, tls.certPem).sign(route);
    const verifier = new RouteVerifier(pkis.pki.caPem);
    const changed = { ...signed, text: signed.text.replace('tcp:127.0.0.1:8080', 'tcp:127.0.0.1:22') };
    assert.deepEqual(verifier.verify(changed, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    const router = await pkis.pki.routerTls('r9');
    const forged = new RouteSigner(router.keyPem, tls.certPem).sign(route);
    assert.equal(verifier.verify(forged, Date.now()).ok, false, 'signed with a router key, claiming the controller certificate');
    const foreign = await pkis.other.controllerTls('ctrl1');
    const foreignSigned = new RouteSigner(foreign.keyPem, foreign.certPem).sign(route);
    assert.deepEqual(verifier.verify(foreignSigned, Date.now()), { ok: false, reason: "the route signer does not chain to this router's CA" });
    assert.equal(verifier.verify({ text: 1 }, Date.now()).ok, false);
    assert.equal(verifier.verify(null, Date.now()).ok, false);
    const bad = new RouteSigner(tls.keyPem, tls.certPem).sign({ ...route, links: ['l1'] });
    assert.deepEqual(verifier.verify(bad, Date.now()), { ok: false, reason: 'the route is malformed: links' });
    const unnamedEgress = new RouteSigner(tls.keyPem, tls.certPem).sign({ ...route, egressFingerprint: 'AB:CD' });
    assert.deepEqual(verifier.verify(unnamedEgress, Date.now()), { ok: false, reason: 'the route is malformed: egressFingerprint' });
    const expiredAt = Date.now() + 3 * 86_400_000;
    assert.equal(verifier.verify(signed, expiredAt).ok, false, 'a signer past its validity');
  });

  it('a route delivered by its signer\'s own channel is taken as the signer\'s text; one delivered by another controller is checked in full', async () => {
    const tls = await pkis.pki.controllerTls('ctrl1');
    const other = await pkis.pki.controllerTls('ctrl2');
    const signer = new RouteSigner(tls.keyPem, tls.certPem);
    const signed = signer.sign(route);
    const mismatched = { ...signed, signature: signer.sign({ ...route, circuitId: 'another-circuit' }).signature };
    const verifier = new RouteVerifier(pkis.pki.caPem);
    const delivered = verifier.verify(mismatched, Date.now(), new X509Certificate(tls.certPem));
    assert.ok(delivered.ok, !delivered.ok ? delivered.reason : '');
    assert.deepEqual(delivered.route, route);
    assert.deepEqual(verifier.verify(mismatched, Date.now(), new X509Certificate(other.certPem)), { ok: false, reason: 'the route signature does not verify' });
    assert.deepEqual(verifier.verify(mismatched, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    // The rest of the checks stay: the signer's chain and validity, and the route's form.
    assert.equal(verifier.verify(mismatched, Date.now() + 3 * 86_400_000, new X509Certificate(tls.certPem)).ok, false, 'a signer past its validity');
    const malformed = signer.sign({ ...route, links: ['l1'] });
    assert.deepEqual(verifier.verify(malformed, Date.now(), new X509Certificate(tls.certPem)), { ok: false, reason: 'the route is malformed: links' });
  });
  it('routes signed as a batch each verify with one signature over their root; a changed route, a path or signature from another batch, a root signed as a plain route and a router without batches refuse them', async () => {
    const tls = await pkis.pki.controllerTls('ctrl1');
    const signer = new RouteSigner(tls.keyPem, tls.certPem);
    const routes = Array.from({ length: 5 }, (_, i) => ({ ...route, circuitId: `batch-circuit-${i}` }));
    const batch = signer.signBatch(routes);
    assert.equal(new Set(batch.map((signed) => signed.signature)).size, 1, 'one signature for the batch');
    const verifier = new RouteVerifier(pkis.pki.caPem);
    batch.forEach((signed, i) => {
      const verdict = verifier.verify(signed, Date.now());
      assert.ok(verdict.ok, !verdict.ok ? verdict.reason : '');
      assert.deepEqual(verdict.route, routes[i]);
    });
    // A verifier that already took the root still checks each route's own path to it.
    const changed = { ...batch[1]!, text: batch[1]!.text.replace('tcp:127.0.0.1:8080', 'tcp:127.0.0.1:22') };
    assert.deepEqual(verifier.verify(changed, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    assert.deepEqual(verifier.verify({ ...batch[1]!, batch: batch[2]!.batch }, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    const other = signer.signBatch(routes.map((r) => ({ ...r, issuedAt: r.issuedAt + 1 })));
    const fresh = new RouteVerifier(pkis.pki.caPem);
    assert.deepEqual(fresh.verify({ ...batch[0]!, signature: other[0]!.signature }, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    assert.deepEqual(fresh.verify({ ...batch[0]!, batch: ['L00'] }, Date.now()), { ok: false, reason: "the route's batch path is malformed" });
    // A plain signature over a route text is no batch root's: set as a batch it does not verify, and vice versa.
    const plain = signer.sign(routes[0]!);
    assert.deepEqual(fresh.verify({ ...plain, batch: batch[0]!.batch }, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    // A router that predates batches checks the signature over the route's text: a batch route fails it (so the
    // controller sends batches only to routers that said routeBatches).
    const { batch: _path, ...withoutPath } = batch[0]!;
    assert.deepEqual(fresh.verify(withoutPath, Date.now()), { ok: false, reason: 'the route signature does not verify' });
    // A batch of one is a plain route.
    const [lone] = signer.signBatch([routes[0]!]);
    assert.equal(lone!.batch, undefined);
    assert.ok(fresh.verify(lone, Date.now()).ok);
  });

  it('a batch route\'s signer is still checked: a root signed with another key, or by a signer of another CA, is refused', async () => {
    const tls = await pkis.pki.controllerTls('ctrl1');
    const routes = [route, { ...route, circuitId: 'second-circuit-id' }];
    const router = await pkis.pki.routerTls('r9');
    const forged = new RouteSigner(router.keyPem, tls.certPem).signBatch(routes);
    const verifier = new RouteVerifier(pkis.pki.caPem);
    assert.deepEqual(verifier.verify(forged[0], Date.now()), { ok: false, reason: 'the route signature does not verify' });
    const foreign = await pkis.other.controllerTls('ctrl1');
    const foreignSigned = new RouteSigner(foreign.keyPem, foreign.certPem).signBatch(routes);
    assert.deepEqual(verifier.verify(foreignSigned[1], Date.now()), { ok: false, reason: "the route signer does not chain to this router's CA" });
    const genuine = new RouteSigner(tls.keyPem, tls.certPem).signBatch(routes);
    assert.ok(verifier.verify(genuine[1], Date.now()).ok);
    assert.equal(verifier.verify(genuine[0], Date.now() + 3 * 86_400_000).ok, false, 'a signer past its validity, though its root was taken before');
  });
});
