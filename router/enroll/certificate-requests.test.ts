import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKeyPair, privateKeyToPem } from '../../common/pki/key-pair.ts';
import { x509 } from '../../common/pki/x509-runtime.ts';
import { createCertificateRequest } from './certificate-requests.ts';

describe('enrollment certificate requests', () => {
  it('carry the edge.csr subject fields, the router id as CN and every SAN kind', async () => {
    const keyPem = await privateKeyToPem((await generateKeyPair()).privateKey);
    const pem = await createCertificateRequest(keyPem, 'router-1', {
      country: 'US',
      province: 'NC',
      locality: 'Charlotte',
      organization: 'NetFoundry',
      organizationalUnit: 'Ziti',
      sans: { dns: ['localhost', 'router1.example.com'], ip: ['127.0.0.1', '::1'], email: ['ops@example.com'], uri: ['spiffe://example.org/router'] },
    });
    const request = new x509.Pkcs10CertificateRequest(pem);
    assert.equal(await request.verify(), true);
    assert.equal(request.subject, 'C=US, ST=NC, L=Charlotte, O=NetFoundry, OU=Ziti, CN=router-1');
    const sans = request.extensions.find((extension): extension is x509.SubjectAlternativeNameExtension => extension instanceof x509.SubjectAlternativeNameExtension);
    assert.deepEqual(sans?.names.toJSON(), [
      { type: 'dns', value: 'localhost' },
      { type: 'dns', value: 'router1.example.com' },
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '::1' },
      { type: 'email', value: 'ops@example.com' },
      { type: 'url', value: 'spiffe://example.org/router' },
    ]);
  });

  it('needs only the router id when edge.csr gives no subject field or SAN', async () => {
    const keyPem = await privateKeyToPem((await generateKeyPair()).privateKey);
    const request = new x509.Pkcs10CertificateRequest(await createCertificateRequest(keyPem, 'r2', { sans: { dns: [], ip: [], email: [], uri: [] } }));
    assert.equal(request.subject, 'CN=r2');
    assert.equal(request.extensions.length, 0);
  });
});
