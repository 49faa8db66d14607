import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CircuitRoute } from '../../common/circuits/circuit-route.ts';
import { createTestPki } from '../links/link-test-support.ts';
import { controllerTrustOf, verifyControllerCertificate } from '../run/controller-identity.ts';
import { ControllerVerdicts, routeAuthorityProblem } from './route-authority.ts';

const route = { controllerId: 'ctrl1' } as CircuitRoute;
const members = new Set(['ctrl1', 'ctrl2']);

describe('route authority', () => {
  it('takes a route signed by the current member it names', () => {
    assert.equal(routeAuthorityProblem({ ok: true, controllerId: 'ctrl1' }, route, members), undefined);
  });

  it('refuses a signer that is not a controller, another member than the one named, a removed member, and any before the members are known', () => {
    assert.match(String(routeAuthorityProblem({ ok: false, reason: 'its certificate is a router\'s' }, route, members)), /not signed by a controller: its certificate is a router's/);
    assert.equal(routeAuthorityProblem({ ok: true, controllerId: 'ctrl2' }, route, members), 'the route names controller ctrl1 but was signed by controller ctrl2');
    assert.equal(routeAuthorityProblem({ ok: true, controllerId: 'ctrl1' }, route, new Set(['ctrl2'])), 'controller ctrl1 is not a member of the cluster now');
    assert.match(String(routeAuthorityProblem({ ok: true, controllerId: 'ctrl1' }, route, undefined)), /not yet heard the cluster's members/);
    assert.match(String(routeAuthorityProblem({ ok: true, controllerId: undefined }, route, members)), /names no controller id/);
  });
});

describe('controller verdicts kept per signer certificate', () => {
  it('answers as the certificate check does, a controller\'s and a router\'s, and a member removed is refused at the very next route', async () => {
    const pki = await createTestPki();
    try {
      const trust = controllerTrustOf(pki.caPem);
      const verdicts = new ControllerVerdicts(trust);
      const controller = new X509Certificate((await pki.controllerTls('ctrl1')).certPem);
      const router = new X509Certificate((await pki.routerTls('r9')).certPem);
      assert.deepEqual(verdicts.of(controller), { ok: true, controllerId: 'ctrl1' });
      assert.deepEqual(verdicts.of(controller), verifyControllerCertificate(controller, trust));
      assert.equal(verdicts.of(router).ok, false);
      assert.deepEqual(verdicts.of(router), verifyControllerCertificate(router, trust));
      // The kept verdict says who signed; whether that controller is a member is read per route.
      let current: ReadonlySet<string> = new Set(['ctrl1']);
      const problem = () => routeAuthorityProblem(verdicts.of(controller), route, current);
      assert.equal(problem(), undefined);
      current = new Set(['ctrl2']);
      assert.equal(problem(), 'controller ctrl1 is not a member of the cluster now');
      current = new Set(['ctrl1', 'ctrl2']);
      assert.equal(problem(), undefined);
    } finally {
      await pki.dispose();
    }
  });
});
