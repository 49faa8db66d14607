import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { identityFile, identitySourceKind, resolveIdentitySource } from './identity-source.ts';

describe('identity sources', () => {
  it('reads no prefix and file: as a path relative to the config dir', () => {
    assert.equal(resolveIdentitySource('certs/router.cert', '/etc/router'), '/etc/router/certs/router.cert');
    assert.equal(resolveIdentitySource('file:certs/router.cert', '/etc/router'), '/etc/router/certs/router.cert');
    assert.equal(resolveIdentitySource('/var/lib/router.cert', '/etc/router'), '/var/lib/router.cert');
  });

  it('keeps inline PEM and hardware engines as written, and names no file for them', () => {
    for (const value of ['pem:-----BEGIN CERTIFICATE-----', 'pkcs11:///usr/lib/softhsm.so?id=01', 'parsec:router-key']) {
      assert.equal(resolveIdentitySource(value, '/etc/router'), value);
      assert.equal(identityFile(value), undefined);
    }
    assert.deepEqual(['pem:x', 'pkcs11:x', 'parsec:x', 'x.pem'].map(identitySourceKind), ['pem', 'engine', 'engine', 'file']);
    assert.equal(identityFile('/etc/router/r.cert'), '/etc/router/r.cert');
  });
});
