import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createIntermediateCa, createRootCa, type CertificateIssuer } from './certificate-authority.ts';
import { createClientCertificate } from './client-certificate.ts';
import { createControllerCertificate } from './controller-certificate.ts';
import { opensslOk } from './openssl-cli.ts';
import { isPkiError } from './pki-error-assertions.ts';
import { fingerprintOf, formatSpiffeId, parseSpiffeId, requireSpiffeUri, spiffeIdOf, trustDomainOf } from './spiffe-id.ts';

describe('SPIFFE ids and fingerprints', () => {
  let root: CertificateIssuer;
  let intermediate: CertificateIssuer;
  before(async () => {
    root = await createRootCa({ commonName: 'r', trustDomain: 'edgeward.local' });
    intermediate = await createIntermediateCa(root, { commonName: 'i' });
  });

  it('formats and parses spiffe://<trust domain>/<kind>/<id>', () => {
    const id = { trustDomain: 'edgeward.local', kind: 'router', id: 'edge-1.eu' };
    assert.equal(formatSpiffeId(id), 'spiffe://edgeward.local/router/edge-1.eu');
    assert.deepEqual(parseSpiffeId('spiffe://edgeward.local/router/edge-1.eu'), id);
  });

  it('parses nothing but the two-segment form with valid parts', () => {
    for (const uri of [
      'spiffe://edgeward.local',
      'spiffe://edgeward.local/controller',
      'spiffe://edgeward.local/a/b/c',
      'spiffe://Edgeward.local/controller/c1',
      'spiffe://edgeward.local/controller/..',
      'spiffe://edgeward.local/controller/c1?x=1',
      'https://edgeward.local/controller/c1',
    ]) {
      assert.equal(parseSpiffeId(uri), undefined, uri);
    }
    assert.throws(() => formatSpiffeId({ trustDomain: 'edgeward.local', kind: 'controller', id: 'a/b' }), isPkiError('INVALID_ARGUMENT'));
  });

  it('accepts any SPIFFE path for a requested id and reports its trust domain', () => {
    assert.deepEqual(requireSpiffeUri('spiffe://example.org/ns/prod/sa/web'), { trustDomain: 'example.org' });
    for (const uri of ['spiffe://example.org', 'spiffe://example.org/', 'spiffe://example.org/a//b', 'spiffe://user@example.org/a', 'SPIFFE://example.org/a']) {
      assert.throws(() => requireSpiffeUri(uri), isPkiError('INVALID_ARGUMENT', /SPIFFE id/), uri);
    }
  });

  it('reads the SPIFFE id of a controller certificate, and none from a CA or a plain client', async () => {
    const controller = await createControllerCertificate(intermediate, {
      id: 'ctrl-9',
      trustDomain: 'edgeward.local',
      dnsNames: ['localhost'],
      ipAddresses: [],
    });
    assert.deepEqual(spiffeIdOf(controller.certPem), { trustDomain: 'edgeward.local', kind: 'controller', id: 'ctrl-9' });
    assert.deepEqual(spiffeIdOf(controller.chainPem), spiffeIdOf(controller.certPem), 'a chain is read by its leaf');
    assert.equal(spiffeIdOf(root.certPem), undefined);
    assert.equal(trustDomainOf(root.certPem), 'edgeward.local');
    assert.equal(trustDomainOf(intermediate.certPem), 'edgeward.local');
    const client = await createClientCertificate(intermediate, { commonName: 'plain' });
    assert.equal(spiffeIdOf(client.certPem), undefined);
    assert.equal(trustDomainOf(client.certPem), undefined);
  });

  it('fingerprints as lowercase hex SHA-1 of the DER certificate, matching openssl', () => {
    const fromOpenssl = opensslOk(['x509', '-noout', '-fingerprint', '-sha1'], root.certPem);
    const expected = fromOpenssl.trim().split('=')[1]!.replaceAll(':', '').toLowerCase();
    assert.equal(fingerprintOf(root.certPem), expected);
    assert.match(fingerprintOf(root.certPem), /^[0-9a-f]{40}$/);
  });

  it('throws INVALID_CERTIFICATE for text that is not a certificate', () => {
    assert.throws(() => spiffeIdOf('hello'), isPkiError('INVALID_CERTIFICATE'));
    assert.throws(() => fingerprintOf(root.keyPem), isPkiError('INVALID_CERTIFICATE', /no "BEGIN CERTIFICATE"/));
    assert.throws(
      () => fingerprintOf('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
      isPkiError('INVALID_CERTIFICATE', /not a valid X.509/),
    );
  });
});
