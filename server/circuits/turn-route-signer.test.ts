import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouteSigner, RouteVerifier, type CircuitRoute } from '../../common/circuits/circuit-route.ts';
import { suiteTestPkis } from '../../router/links/suite-test-pkis.ts';
import { TurnRouteSigner } from './turn-route-signer.ts';

const pkis = suiteTestPkis();

const route = (circuitId: string): CircuitRoute => ({
  circuitId,
  serviceId: 'svc',
  serviceName: 'echo',
  identityId: 'r1',
  routers: ['r1', 'r2'],
  links: ['l1'],
  terminator: { id: 't1', routerId: 'r2', address: 'tcp:127.0.0.1:8080' },
  controllerId: 'ctrl1',
  egressFingerprint: '0123456789abcdef0123456789abcdef01234567',
  issuedAt: Date.now(),
});

/** An end of turn run by hand: the test decides when the turn ends. */
function manualTurns(): { endOfTurn: (run: () => void) => void; end(): void; scheduled(): number } {
  let runs: Array<() => void> = [];
  return {
    endOfTurn: (run) => void runs.push(run),
    end: () => {
      const now = runs;
      runs = [];
      for (const run of now) run();
    },
    scheduled: () => runs.length,
  };
}

test('the batchable routes of one turn share one signature, given at the end of the turn; a route for an older router is signed alone at once', async () => {
  const tls = await pkis.pki.controllerTls('ctrl1');
  const turns = manualTurns();
  const signer = new TurnRouteSigner(new RouteSigner(tls.keyPem, tls.certPem), turns.endOfTurn);
  const alone = await signer.sign(route('circuit-alone-1'), false);
  assert.equal(alone.batch, undefined);
  assert.equal(turns.scheduled(), 0, 'nothing waits for the turn');
  let settled = 0;
  const pending = ['circuit-batch-1', 'circuit-batch-2', 'circuit-batch-3'].map((id) =>
    signer.sign(route(id), true).then((signed) => {
      settled++;
      return signed;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, 0, 'held until the turn ends');
  assert.equal(turns.scheduled(), 1, 'one end of turn for the three');
  turns.end();
  const signed = await Promise.all(pending);
  assert.equal(new Set(signed.map((one) => one.signature)).size, 1);
  const verifier = new RouteVerifier(pkis.pki.caPem);
  signed.forEach((one, i) => {
    const verdict = verifier.verify(one, Date.now());
    assert.ok(verdict.ok && verdict.route.circuitId === `circuit-batch-${i + 1}`);
  });
  // The next turn's route is a batch of one: signed as a plain route.
  const next = signer.sign(route('circuit-next-1'), true);
  turns.end();
  const lone = await next;
  assert.equal(lone.batch, undefined);
  assert.ok(verifier.verify(lone, Date.now()).ok);
  assert.notEqual(lone.signature, signed[0]!.signature);
});
