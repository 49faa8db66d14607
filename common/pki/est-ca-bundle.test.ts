import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createIntermediateCa, createRootCa } from './certificate-authority.ts';
import { decodeEstCaBundle, encodeEstCaBundle } from './est-ca-bundle.ts';
import { opensslOk } from './openssl-cli.ts';
import { isPkiError } from './pki-error-assertions.ts';

describe('EST CA bundle', () => {
  let dir: string;
  let bundlePem: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edgeward-est-'));
    const root = await createRootCa({ commonName: 'est root CA', trustDomain: 'example.org' });
    const intermediate = await createIntermediateCa(root, { commonName: 'est intermediate CA' });
    bundlePem = intermediate.certPem + root.certPem;
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('is base64 in 64-character lines that `openssl base64 -d` and `openssl pkcs7` read back to the same certificates', async () => {
    const body = encodeEstCaBundle(bundlePem);
    const lines = body.split('\n');
    assert.equal(lines.pop(), '', 'ends in a newline');
    assert.ok(lines.length > 2);
    for (const line of lines.slice(0, -1)) assert.equal(line.length, 64);
    assert.ok(lines.at(-1)!.length <= 64);
    const file = join(dir, 'cacerts.b64');
    await writeFile(file, body);
    const der = join(dir, 'cacerts.p7b');
    opensslOk(['base64', '-d', '-in', file, '-out', der]);
    const printed = opensslOk(['pkcs7', '-inform', 'DER', '-in', der, '-print_certs']);
    assert.deepEqual(pems(printed), pems(bundlePem));
  });

  it('decodes a wrapped or unwrapped body to the PEM bundle, and refuses what is not one', () => {
    const body = encodeEstCaBundle(bundlePem);
    assert.deepEqual(pems(decodeEstCaBundle(body)), pems(bundlePem));
    assert.deepEqual(pems(decodeEstCaBundle(body.replace(/\n/g, ''))), pems(bundlePem));
    assert.throws(() => decodeEstCaBundle(''), isPkiError('INVALID_CERTIFICATE'));
    assert.throws(() => decodeEstCaBundle('<html>not found</html>'), isPkiError('INVALID_CERTIFICATE'));
    assert.throws(() => decodeEstCaBundle(Buffer.from('not a pkcs7').toString('base64')), isPkiError('INVALID_CERTIFICATE'));
  });
});

function pems(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((match) => match[0].replace(/\s+/g, ''));
}
