import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { suiteTestPkis } from '../links/suite-test-pkis.ts';
import { readReadyProof, ReadySigner, ReadyVerifier, type ExpectedReady } from './ready-proof.ts';

const pkis = suiteTestPkis();

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint.replaceAll(':', '').toLowerCase();

describe('c.ready proofs', () => {
  it('a ready signed by the route\'s egress with its enrolled certificate verifies; for another circuit, route or count it does not', async () => {
    const egress = await pkis.pki.routerTls('r3');
    const proof = new ReadySigner(egress.keyPem, egress.certPem).sign('c0123456789', 'a'.repeat(64), 42);
    const verifier = new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]);
    const expected: ExpectedReady = { circuitId: 'c0123456789', routeDigest: 'a'.repeat(64), received: 42, egressRouterId: 'r3', egressFingerprint: fingerprint(egress.certPem) };
    assert.equal(verifier.problem(proof, expected, Date.now()), undefined);
    for (const changed of [{ circuitId: 'c9876543210' }, { routeDigest: 'b'.repeat(64) }, { received: 43 }, { received: undefined }]) {
      assert.equal(verifier.problem(proof, { ...expected, ...changed }, Date.now()), 'the ready signature of router r3 does not verify for this circuit and route', JSON.stringify(changed));
    }
  });

  it('refuses no proof, another router\'s certificate, a certificate the router did not enroll with, another CA and a claimed certificate with another key', async () => {
    const egress = await pkis.pki.routerTls('r3');
    const middle = await pkis.pki.routerTls('r2');
    const reissued = await pkis.pki.routerTls('r3');
    const foreign = await pkis.other.routerTls('r3');
    const verifier = new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]);
    const expected: ExpectedReady = { circuitId: 'c0123456789', routeDigest: 'a'.repeat(64), received: undefined, egressRouterId: 'r3', egressFingerprint: fingerprint(egress.certPem) };
    const signed = (tls: { keyPem: string; certPem: string }) => new ReadySigner(tls.keyPem, tls.certPem).sign(expected.circuitId, expected.routeDigest, undefined);
    assert.equal(verifier.problem(undefined, expected, Date.now()), 'the ready is not signed (router r3 must sign it)');
    assert.match(String(verifier.problem(signed(middle), expected, Date.now())), /^the ready signer is not router r3: the certificate names "r2"/);
    assert.match(String(verifier.problem(signed(reissued), expected, Date.now())), /^the ready signer is not router r3: the certificate \(fingerprint [0-9a-f]{40}\) is not the one router "r3" enrolled with/);
    assert.equal(verifier.problem(signed(foreign), expected, Date.now()), "the ready signer does not chain to this router's CA");
    const stolenName = new ReadySigner(middle.keyPem, egress.certPem).sign(expected.circuitId, expected.routeDigest, undefined);
    assert.match(String(verifier.problem(stolenName, expected, Date.now())), /does not verify/);
  });

  it('reads a proof only in its shape', () => {
    assert.deepEqual(readReadyProof({ signature: 'c2ln', signer: 'pem', extra: 1 }), { signature: 'c2ln', signer: 'pem' });
    for (const bad of [undefined, null, 'x', {}, { signature: '', signer: 'pem' }, { signature: 'c2ln', signer: 7 }, { signature: 'x'.repeat(4097), signer: 'pem' }]) assert.equal(readReadyProof(bad), undefined, JSON.stringify(bad));
    const step = `L${'ab'.repeat(32)}`;
    assert.deepEqual(readReadyProof({ signature: 'c2ln', signer: 'pem', batch: [step] }), { signature: 'c2ln', signer: 'pem', batch: [step] });
    for (const batch of ['L', [7], Array.from({ length: 17 }, () => step), ['x'.repeat(66)]]) assert.equal(readReadyProof({ signature: 'c2ln', signer: 'pem', batch }), undefined, JSON.stringify(batch));
  });

  it('readies signed as a batch each verify by their own path to one signed root; another circuit, a path from another ready, a malformed path and a check over the plain statement (an older ingress\'s) refuse them', async () => {
    const egress = await pkis.pki.routerTls('r3');
    const signer = new ReadySigner(egress.keyPem, egress.certPem);
    const statements = Array.from({ length: 5 }, (_, i) => ({ circuitId: `c-batch-${i}-000`, routeDigest: String(i).repeat(64), received: undefined, ...(i === 2 ? { hostKey: 'k'.repeat(44) } : {}) }));
    const proofs = signer.signBatch(statements);
    assert.equal(new Set(proofs.map((proof) => proof.signature)).size, 1, 'one signature');
    const expectedOf = (i: number): ExpectedReady => ({ ...statements[i]!, egressRouterId: 'r3', egressFingerprint: fingerprint(egress.certPem) });
    const verifier = new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]);
    proofs.forEach((proof, i) => assert.equal(verifier.problem(proof, expectedOf(i), Date.now()), undefined, `ready ${i}`));
    const notThis = 'the ready signature of router r3 does not verify for this circuit and route';
    assert.equal(verifier.problem(proofs[0], { ...expectedOf(0), circuitId: 'c-other-0000' }, Date.now()), notThis, 'the root was taken, but this statement does not lead to it');
    assert.equal(verifier.problem(proofs[1], expectedOf(0), Date.now()), notThis);
    assert.equal(verifier.problem({ ...proofs[0]!, batch: ['L00'] }, expectedOf(0), Date.now()), 'the ready of router r3 carries a malformed batch path');
    const { batch: _path, ...asPlain } = proofs[0]!;
    assert.equal(new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]).problem(asPlain, expectedOf(0), Date.now()), notThis, 'an ingress without batches would refuse it');
    // Batch proofs are still the egress's own: another router's batch for these circuits is refused.
    const middle = await pkis.pki.routerTls('r2');
    const byMiddle = new ReadySigner(middle.keyPem, middle.certPem).signBatch(statements);
    assert.match(String(new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]).problem(byMiddle[0], expectedOf(0), Date.now())), /^the ready signer is not router r3/);
    const stolenName = new ReadySigner(middle.keyPem, egress.certPem).signBatch(statements);
    assert.equal(new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]).problem(stolenName[3], expectedOf(3), Date.now()), notThis);
    // A batch of one is a plain proof.
    const [lone] = signer.signBatch([statements[0]!]);
    assert.equal(lone!.batch, undefined);
    assert.equal(new ReadyVerifier(pkis.pki.caPem, [pkis.pki.trustDomain]).problem(lone, expectedOf(0), Date.now()), undefined);
  });
});
