import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { suiteTestPkis } from '../links/suite-test-pkis.ts';
import { ReadySigner, ReadyVerifier, type ReadyProof } from './ready-proof.ts';
import { TurnReadySigner } from './turn-ready-signer.ts';

const pkis = suiteTestPkis();

test('the batchable readies of one turn share one signature, given at the end of the turn; one whose ingress takes no batches is signed alone at once', async () => {
  const egress = await pkis.pki.routerTls('r3');
  let ends: Array<() => void> = [];
  const signer = new TurnReadySigner(new ReadySigner(egress.keyPem, egress.certPem), (run) => void ends.push(run));
  const statement = (circuitId: string) => ({ circuitId, routeDigest: 'a'.repeat(64), received: undefined });
  let alone: ReadyProof | undefined;
  signer.sign(statement('c-alone-0000'), false, (proof) => (alone = proof));
  assert.ok(alone && alone.batch === undefined, 'signed at once, alone');
  const proofs: ReadyProof[] = [];
  for (const id of ['c-batch-0000', 'c-batch-1111', 'c-batch-2222']) signer.sign(statement(id), true, (proof) => proofs.push(proof));
  assert.equal(proofs.length, 0, 'held until the turn ends');
  assert.equal(ends.length, 1);
  const now = ends;
  ends = [];
  for (const run of now) run();
  assert.equal(proofs.length, 3);
  assert.equal(new Set(proofs.map((proof) => proof.signature)).size, 1);
  const verifier = new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]);
  const egressFingerprint = new X509Certificate(egress.certPem).fingerprint.replaceAll(':', '').toLowerCase();
  ['c-batch-0000', 'c-batch-1111', 'c-batch-2222'].forEach((circuitId, i) => {
    assert.equal(verifier.problem(proofs[i], { ...statement(circuitId), egressRouterId: 'r3', egressFingerprint }, Date.now()), undefined);
  });
});
