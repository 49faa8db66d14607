import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { opensslOk } from '../../../common/pki/openssl-cli.ts';
import { CaCertificateError, parseCaCertificate, verifyCaPossession } from './ca-certificate.ts';
import { certificateFingerprint } from './certificate-fingerprint.ts';
import { CA_EXTENSIONS, CLIENT_EXTENSIONS, OpensslTestPki, type TestCertificate } from './openssl-test-pki.ts';

const PROOF_EXTENSIONS = ['basicConstraints=critical,CA:FALSE'];

function caError(code: string, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof CaCertificateError, `expected CaCertificateError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  };
}

describe('third-party CA certificate', () => {
  let pki: OpensslTestPki;
  let ca: TestCertificate;
  let otherCa: TestCertificate;

  before(() => {
    pki = new OpensslTestPki();
    ca = pki.selfSigned('Acme Devices CA');
    otherCa = pki.selfSigned('Other CA');
  });
  after(() => pki.dispose());

  describe('parseCaCertificate', () => {
    it('describes a CA certificate as openssl sees it', () => {
      const info = parseCaCertificate(ca.certPem);
      assert.equal(info.fingerprint, certificateFingerprint(ca.der));
      assert.equal(info.commonName, 'Acme Devices CA');
      assert.equal(info.subject, 'CN=Acme Devices CA');
      const dates = opensslOk(['x509', '-in', ca.certFile, '-noout', '-dates']);
      const notBefore = /notBefore=(.*)/.exec(dates)![1]!;
      const notAfter = /notAfter=(.*)/.exec(dates)![1]!;
      assert.equal(info.notBefore, new Date(notBefore).toISOString());
      assert.equal(info.notAfter, new Date(notAfter).toISOString());
      assert.equal(info.certPem, ca.certPem);
    });

    it('accepts an intermediate CA and normalises the PEM around it', () => {
      const intermediate = pki.issue('Acme Intermediate', ca, CA_EXTENSIONS);
      const pasted = `Issuer: CN = Acme Devices CA\r\n${intermediate.certPem.replaceAll('\n', '\r\n')}\r\n\r\n`;
      const info = parseCaCertificate(pasted);
      assert.equal(info.commonName, 'Acme Intermediate');
      assert.equal(info.certPem, intermediate.certPem);
    });

    it('refuses text that is not PEM', () => {
      assert.throws(() => parseCaCertificate('not a certificate'), caError('EXPECTED_PEM_CERTIFICATE', /no PEM text/));
      assert.throws(() => parseCaCertificate(''), caError('EXPECTED_PEM_CERTIFICATE', /no PEM text/));
      assert.throws(
        () => parseCaCertificate('-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----\n'),
        caError('EXPECTED_PEM_CERTIFICATE', /malformed.*base64/),
      );
    });

    it('refuses more than one block', () => {
      assert.throws(() => parseCaCertificate(ca.certPem + otherCa.certPem), caError('EXPECTED_PEM_CERTIFICATE', /exactly one PEM block, found 2/));
    });

    it('refuses a private key without echoing it', () => {
      const keyPem = opensslOk(['pkey', '-in', ca.keyFile]);
      const body = keyPem.split('\n')[1]!;
      assert.throws(() => parseCaCertificate(keyPem), (error: unknown) => {
        assert.ok(error instanceof CaCertificateError);
        assert.equal(error.code, 'EXPECTED_PEM_CERTIFICATE');
        assert.match(error.message, /found a PRIVATE KEY block/);
        assert.ok(!error.message.includes(body));
        return true;
      });
    });

    it('refuses a CERTIFICATE block that does not hold a certificate', () => {
      const garbage = `-----BEGIN CERTIFICATE-----\n${Buffer.from('definitely not DER').toString('base64')}\n-----END CERTIFICATE-----\n`;
      assert.throws(() => parseCaCertificate(garbage), caError('COULD_NOT_PARSE_DER_BLOCK', /not hold a valid X.509 certificate/));
      const truncated = `-----BEGIN CERTIFICATE-----\n${ca.der.subarray(0, 60).toString('base64')}\n-----END CERTIFICATE-----\n`;
      assert.throws(() => parseCaCertificate(truncated), caError('COULD_NOT_PARSE_DER_BLOCK', /X.509/));
    });

    it('refuses a certificate that is not a CA', () => {
      const leaf = pki.issue('just-a-device', ca, CLIENT_EXTENSIONS);
      assert.throws(() => parseCaCertificate(leaf.certPem), caError('INVALID_CA', /just-a-device.*not a CA certificate/));
    });

    it('refuses a CA whose key usage does not allow signing certificates', () => {
      const crippled = pki.issue('Crippled CA', ca, ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,digitalSignature']);
      assert.throws(() => parseCaCertificate(crippled.certPem), caError('INVALID_CA', /keyCertSign/));
    });
  });

  describe('verifyCaPossession', () => {
    const token = 'Xk3v9QpL2m';
    const now = () => Date.now();

    it('accepts a certificate signed by the CA whose common name is the verification token', () => {
      const proof = pki.issue(token, ca, PROOF_EXTENSIONS);
      assert.deepEqual(verifyCaPossession(ca.certPem, proof.certPem, token, now()), { ok: true });
    });

    it('refuses a certificate with another common name', () => {
      const proof = pki.issue('not-the-token', ca, PROOF_EXTENSIONS);
      const result = verifyCaPossession(ca.certPem, proof.certPem, token, now());
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.code, 'INVALID_COMMON_NAME');
    });

    it('refuses a certificate with the token signed by another CA', () => {
      const proof = pki.issue(`${token}-other`, otherCa, PROOF_EXTENSIONS);
      const result = verifyCaPossession(ca.certPem, proof.certPem, `${token}-other`, now());
      assert.equal(!result.ok && result.code, 'CERTIFICATE_FAILED_VALIDATION');
    });

    it('refuses an expired proof', () => {
      const proof = pki.issue(`${token}-old`, ca, PROOF_EXTENSIONS, { startDate: '20200101000000Z', endDate: '20210101000000Z' });
      const result = verifyCaPossession(ca.certPem, proof.certPem, `${token}-old`, now());
      assert.equal(!result.ok && result.code, 'CERTIFICATE_FAILED_VALIDATION');
      assert.match(!result.ok ? result.reason : '', /expired/);
    });

    it('refuses the CA certificate itself, even when its name is the token', () => {
      const selfProving = pki.selfSigned(`${token}-self`);
      const result = verifyCaPossession(selfProving.certPem, selfProving.certPem, `${token}-self`, now());
      assert.equal(!result.ok && result.code, 'CERTIFICATE_FAILED_VALIDATION');
    });

    it('refuses a body that is not a PEM certificate', () => {
      for (const body of ['', 'hello', opensslOk(['pkey', '-in', ca.keyFile])]) {
        const result = verifyCaPossession(ca.certPem, body, token, now());
        assert.equal(!result.ok && result.code, 'EXPECTED_PEM_CERTIFICATE', JSON.stringify(body.slice(0, 20)));
      }
    });

    it('refuses a CERTIFICATE block with bad DER', () => {
      const garbage = `-----BEGIN CERTIFICATE-----\n${Buffer.from('junk junk junk').toString('base64')}\n-----END CERTIFICATE-----\n`;
      const result = verifyCaPossession(ca.certPem, garbage, token, now());
      assert.equal(!result.ok && result.code, 'COULD_NOT_PARSE_DER_BLOCK');
    });

    it('never matches an empty verification token', () => {
      const proof = pki.issue('anything', ca, PROOF_EXTENSIONS);
      const result = verifyCaPossession(ca.certPem, proof.certPem, '', now());
      assert.equal(!result.ok && result.code, 'INVALID_COMMON_NAME');
    });
  });
});
