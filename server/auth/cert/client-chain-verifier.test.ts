import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { certificateFingerprint } from './certificate-fingerprint.ts';
import { MAX_PATH_LENGTH } from './certification-path.ts';
import { verifyClientChain, type ChainResult, type TrustAnchor } from './client-chain-verifier.ts';
import { CA_EXTENSIONS, CLIENT_EXTENSIONS, OpensslTestPki, SERVER_EXTENSIONS, type TestCertificate } from './openssl-test-pki.ts';

describe('client certificate chain verification', () => {
  let pki: OpensslTestPki;
  let root: TestCertificate;
  let intermediate: TestCertificate;
  let subIntermediate: TestCertificate;
  let alice: TestCertificate; // root → intermediate → alice
  let carol: TestCertificate; // root → intermediate → sub-intermediate → carol
  let rootAnchor: TrustAnchor;
  // Read the clock at each check: openssl stamps notBefore with the second a certificate was made.
  const rightNow = (allowExpired = false) => ({ now: Date.now(), allowExpired });

  before(() => {
    pki = new OpensslTestPki();
    root = pki.selfSigned('Root CA');
    intermediate = pki.issue('Intermediate CA', root, CA_EXTENSIONS);
    subIntermediate = pki.issue('Sub CA', intermediate, CA_EXTENSIONS);
    alice = pki.issue('alice', intermediate, CLIENT_EXTENSIONS);
    carol = pki.issue('carol', subIntermediate, CLIENT_EXTENSIONS);
    rootAnchor = { id: 'ca-root', certificatesPem: root.certPem };
  });
  after(() => pki.dispose());

  function refusal(result: ChainResult): { reason: string; detail: string } {
    assert.equal(result.ok, false, 'expected the chain to be refused');
    return result as { reason: string; detail: string };
  }

  it('accepts a leaf signed directly by a root anchor and reports its fingerprint and common name', () => {
    const bob = pki.issue('bob', root, CLIENT_EXTENSIONS);
    const result = verifyClientChain([bob.der], [rootAnchor], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.anchorId, 'ca-root');
    assert.equal(result.commonName, 'bob');
    assert.equal(result.fingerprint, certificateFingerprint(bob.der));
    assert.equal(result.expired, false);
    assert.ok(result.leaf.raw.equals(bob.der));
  });

  it('accepts leaf + intermediate anchored at the root', () => {
    const result = verifyClientChain([alice.der, intermediate.der], [rootAnchor], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.commonName, 'alice');
  });

  it('accepts a lone leaf when the anchor is the intermediate itself (partial chain)', () => {
    const result = verifyClientChain([alice.der], [{ id: 'ca-intermediate', certificatesPem: intermediate.certPem }], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.anchorId, 'ca-intermediate');
  });

  it('accepts intermediates presented out of order', () => {
    const result = verifyClientChain([carol.der, intermediate.der, subIntermediate.der], [rootAnchor], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.commonName, 'carol');
  });

  it('ignores a root the client sends along and still anchors at the configured root', () => {
    const result = verifyClientChain([alice.der, root.der, intermediate.der], [rootAnchor], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
  });

  it('picks the first anchor in the given order when several could match', () => {
    const intermediateAnchor = { id: 'ca-intermediate', certificatesPem: intermediate.certPem };
    const chain = [alice.der, intermediate.der];
    assert.equal((verifyClientChain(chain, [rootAnchor, intermediateAnchor], rightNow()) as { anchorId: string }).anchorId, 'ca-root');
    assert.equal((verifyClientChain(chain, [intermediateAnchor, rootAnchor], rightNow()) as { anchorId: string }).anchorId, 'ca-intermediate');
  });

  it('trusts every certificate of a multi-certificate anchor', () => {
    const other = pki.selfSigned('Unrelated Root');
    const result = verifyClientChain([alice.der], [{ id: 'bundle', certificatesPem: other.certPem + intermediate.certPem }], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.anchorId, 'bundle');
  });

  it('refuses a leaf whose intermediate was not sent (unknown-issuer)', () => {
    const result = refusal(verifyClientChain([alice.der], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'unknown-issuer');
    assert.match(result.detail, /alice/);
  });

  it('refuses a chain when an intermediate in the middle is missing', () => {
    assert.equal(refusal(verifyClientChain([carol.der, intermediate.der], [rootAnchor], rightNow())).reason, 'unknown-issuer');
  });

  it('refuses a self-signed client certificate', () => {
    const lone = pki.selfSigned('lone-client', CLIENT_EXTENSIONS.filter((line) => !line.startsWith('authorityKeyIdentifier')));
    const result = refusal(verifyClientChain([lone.der], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'self-signed');
    assert.match(result.detail, /lone-client/);
  });

  it('accepts a self-signed client certificate that is itself a trust anchor (pinned)', () => {
    const pinned = pki.selfSigned('pinned-client', CLIENT_EXTENSIONS.filter((line) => !line.startsWith('authorityKeyIdentifier')));
    const result = verifyClientChain([pinned.der], [rootAnchor, { id: 'pinned', certificatesPem: pinned.certPem }], rightNow());
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.anchorId, 'pinned');
  });

  it('refuses a certificate from another CA, even one with the same name as ours', () => {
    const otherRoot = pki.selfSigned('Other Root');
    const mallory = pki.issue('mallory', otherRoot, CLIENT_EXTENSIONS);
    assert.equal(refusal(verifyClientChain([mallory.der], [rootAnchor], rightNow())).reason, 'unknown-issuer');

    // Same subject as our root but a different key: the authority key identifier gives it away.
    const impostorPki = new OpensslTestPki();
    try {
      const impostorRoot = impostorPki.selfSigned('Root CA');
      const forged = impostorPki.issue('forged', impostorRoot, CLIENT_EXTENSIONS);
      assert.equal(refusal(verifyClientChain([forged.der], [rootAnchor], rightNow())).reason, 'unknown-issuer');
      // Without key identifiers (openssl adds them unless told "none") the names link, and only the signature check catches it.
      const bare = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth', 'subjectKeyIdentifier=none', 'authorityKeyIdentifier=none'];
      const bareForged = impostorPki.issue('bare-forged', impostorRoot, bare);
      assert.equal(refusal(verifyClientChain([bareForged.der], [rootAnchor], rightNow())).reason, 'bad-signature');
    } finally {
      impostorPki.dispose();
    }
  });

  it('refuses a leaf whose signature was tampered with (bad-signature)', () => {
    const tampered = Buffer.from(alice.der);
    tampered[tampered.length - 1]! ^= 0x01; // last byte of the signature value
    const result = refusal(verifyClientChain([tampered, intermediate.der], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'bad-signature');
    assert.match(result.detail, /alice/);
  });

  it('refuses an expired leaf unless expired certificates are allowed', () => {
    const expired = pki.issue('old-alice', intermediate, CLIENT_EXTENSIONS, { startDate: '20200101000000Z', endDate: '20210101000000Z' });
    const chain = [expired.der, intermediate.der];
    const result = refusal(verifyClientChain(chain, [rootAnchor], rightNow()));
    assert.equal(result.reason, 'expired');
    assert.match(result.detail, /old-alice/);

    const tolerated = verifyClientChain(chain, [rootAnchor], rightNow(true));
    assert.ok(tolerated.ok, JSON.stringify(tolerated));
    assert.equal(tolerated.expired, true);
    assert.equal(tolerated.commonName, 'old-alice');
  });

  it('refuses a leaf that is not yet valid, even when expired certificates are allowed', () => {
    const future = pki.issue('future-alice', intermediate, CLIENT_EXTENSIONS, { startDate: '20980101000000Z', endDate: '20990101000000Z' });
    for (const allowExpired of [false, true]) {
      const result = refusal(verifyClientChain([future.der, intermediate.der], [rootAnchor], rightNow(allowExpired)));
      assert.equal(result.reason, 'not-yet-valid');
    }
  });

  it('refuses an expired intermediate unless expired certificates are allowed', () => {
    const oldIntermediate = pki.issue('Old Intermediate CA', root, CA_EXTENSIONS, { startDate: '20200101000000Z', endDate: '20210101000000Z' });
    const dave = pki.issue('dave', oldIntermediate, CLIENT_EXTENSIONS);
    const chain = [dave.der, oldIntermediate.der];
    const result = refusal(verifyClientChain(chain, [rootAnchor], rightNow()));
    assert.equal(result.reason, 'expired');
    assert.match(result.detail, /Old Intermediate CA/);

    const tolerated = verifyClientChain(chain, [rootAnchor], rightNow(true));
    assert.ok(tolerated.ok, JSON.stringify(tolerated));
    assert.equal(tolerated.expired, true);
  });

  it('refuses a chain through an intermediate without CA:TRUE (not-a-ca)', () => {
    const notCa = pki.issue('Not A CA', root, ['basicConstraints=critical,CA:FALSE', 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid']);
    const eve = pki.issue('eve', notCa, CLIENT_EXTENSIONS);
    const result = refusal(verifyClientChain([eve.der, notCa.der], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'not-a-ca');
    assert.match(result.detail, /Not A CA/);
  });

  it('refuses a leaf that is itself a CA', () => {
    const rogue = pki.issue('Rogue CA', intermediate, CA_EXTENSIONS);
    assert.equal(refusal(verifyClientChain([rogue.der, intermediate.der], [rootAnchor], rightNow())).reason, 'not-a-client-certificate');
  });

  it('refuses a leaf with CA:TRUE even when its key usage does not allow certificate signing', () => {
    const odd = pki.issue('odd-ca-leaf', intermediate, ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth']);
    assert.equal(refusal(verifyClientChain([odd.der, intermediate.der], [rootAnchor], rightNow())).reason, 'not-a-client-certificate');
  });

  it('refuses a leaf whose extended key usage is serverAuth only', () => {
    const web = pki.issue('web', intermediate, SERVER_EXTENSIONS);
    const result = refusal(verifyClientChain([web.der, intermediate.der], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'not-a-client-certificate');
    assert.match(result.detail, /extended key usage/);
  });

  it('accepts a leaf without an extended key usage extension (no restriction)', () => {
    const plain = pki.issue('plain', intermediate, ['basicConstraints=critical,CA:FALSE', 'authorityKeyIdentifier=keyid']);
    assert.ok(verifyClientChain([plain.der, intermediate.der], [rootAnchor], rightNow()).ok);
  });

  it('refuses an empty chain and bytes that are not a DER certificate', () => {
    assert.equal(refusal(verifyClientChain([], [rootAnchor], rightNow())).reason, 'no-certificate');
    assert.equal(refusal(verifyClientChain([Buffer.from('not a certificate')], [rootAnchor], rightNow())).reason, 'malformed');
    assert.equal(refusal(verifyClientChain([Buffer.from(alice.certPem)], [rootAnchor], rightNow())).reason, 'malformed');
    const result = refusal(verifyClientChain([alice.der, alice.der.subarray(0, 40)], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'malformed');
    assert.match(result.detail, /certificate 1/);
  });

  it('refuses everything when no anchors are configured', () => {
    assert.equal(refusal(verifyClientChain([alice.der, intermediate.der], [], rightNow())).reason, 'unknown-issuer');
  });

  it(`stops at ${MAX_PATH_LENGTH} certificates even when a longer chain would reach the anchor`, () => {
    const cas: TestCertificate[] = [root];
    for (let depth = 1; depth < MAX_PATH_LENGTH; depth++) cas.push(pki.issue(`Depth ${depth} CA`, cas.at(-1)!, CA_EXTENSIONS));
    const deepLeaf = pki.issue('deep-leaf', cas.at(-1)!, CLIENT_EXTENSIONS);
    const intermediates = cas.slice(1).reverse().map((ca) => ca.der);
    // leaf + 7 intermediates + root = 9 certificates, one more than allowed.
    assert.equal(refusal(verifyClientChain([deepLeaf.der, ...intermediates], [rootAnchor], rightNow())).reason, 'unknown-issuer');
    // Anchoring one level lower makes the same chain fit.
    const shorter = verifyClientChain([deepLeaf.der, ...intermediates], [{ id: 'depth-1', certificatesPem: cas[1]!.certPem }], rightNow());
    assert.ok(shorter.ok, JSON.stringify(shorter));
  });

  it('gives up quickly on a chain built to make the path search explode', () => {
    // Twelve CAs sharing one name and key, without key identifiers: every one links to every other.
    const noKeyIds = ['subjectKeyIdentifier=none', 'authorityKeyIdentifier=none'];
    const twins = pki.selfSignedTwins('Twin CA', 12, ['basicConstraints=critical,CA:TRUE', ...noKeyIds]);
    const victim = pki.issue('twin-victim', twins[0]!, ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth', ...noKeyIds]);
    const started = performance.now();
    const result = refusal(verifyClientChain([victim.der, ...twins.map((twin) => twin.der)], [rootAnchor], rightNow()));
    assert.equal(result.reason, 'unknown-issuer');
    assert.match(result.detail, /gave up after \d+ signature checks/);
    assert.ok(performance.now() - started < 1000, `took ${performance.now() - started}ms`);
  });

  it('depends only on the time it is given', () => {
    const chain = [alice.der, intermediate.der];
    const tenYearsOn = Date.now() + 10 * 365 * 24 * 3600 * 1000;
    const yearsAgo = Date.UTC(2001, 0, 1);
    assert.equal(refusal(verifyClientChain(chain, [rootAnchor], { now: tenYearsOn, allowExpired: false })).reason, 'expired');
    assert.equal(refusal(verifyClientChain(chain, [rootAnchor], { now: yearsAgo, allowExpired: true })).reason, 'not-yet-valid');
  });
});
