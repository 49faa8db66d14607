import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { certificateDers, encodePem, pemBlocks, PemSyntaxError } from './pem-blocks.ts';

describe('PEM blocks', () => {
  const der = Buffer.from(Array.from({ length: 100 }, (_, i) => i));

  it('round-trips DER through PEM with 64-character lines', () => {
    const pem = encodePem('CERTIFICATE', der);
    const lines = pem.trimEnd().split('\n');
    assert.equal(lines[0], '-----BEGIN CERTIFICATE-----');
    assert.equal(lines.at(-1), '-----END CERTIFICATE-----');
    assert.ok(lines.slice(1, -1).every((line) => line.length <= 64));
    assert.deepEqual(pemBlocks(pem), [{ type: 'CERTIFICATE', der }]);
  });

  it('finds blocks among other text, CRLF line ends included, and filters certificates', () => {
    const key = encodePem('PRIVATE KEY', Buffer.from('key'));
    const text = `# bundle\r\n${encodePem('CERTIFICATE', der).replaceAll('\n', '\r\n')}junk\n${key}`;
    assert.deepEqual(pemBlocks(text).map((block) => block.type), ['CERTIFICATE', 'PRIVATE KEY']);
    assert.deepEqual(certificateDers(text), [der]);
  });

  it('returns nothing for text without armour', () => {
    assert.deepEqual(pemBlocks('just some text'), []);
    assert.deepEqual(pemBlocks(''), []);
  });

  it('rejects broken armour instead of guessing', () => {
    assert.throws(() => pemBlocks('-----BEGIN CERTIFICATE-----\nAAAA\n'), PemSyntaxError);
    assert.throws(() => pemBlocks('-----BEGIN CERTIFICATE-----\nAA!A\n-----END CERTIFICATE-----\n'), /base64/);
    assert.throws(() => pemBlocks('-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----\n'), /base64/);
    assert.throws(() => pemBlocks('-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n'), /no "-----END CERTIFICATE-----" line/);
    assert.throws(() => pemBlocks('-----BEGIN CERTIFICATE-----\nAAAA\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), /interrupted/);
  });
});
