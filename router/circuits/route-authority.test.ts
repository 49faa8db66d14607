import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CircuitRoute } from '../../common/circuits/circuit-route.ts';
import { routeAuthorityProblem } from './route-authority.ts';

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
