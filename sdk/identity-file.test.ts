import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { clientApiBase, parseIdentityFile, readIdentityFile } from './identity-file.ts';
import { EdgeSdkError } from './sdk-errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-identity-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const cert = '-----BEGIN CERTIFICATE-----\nleaf\n-----END CERTIFICATE-----\n';
const key = '-----BEGIN EC PRIVATE KEY-----\nk\n-----END EC PRIVATE KEY-----\n';
const ca = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';

const refused = (text: string, pattern: RegExp) => assert.throws(() => parseIdentityFile(text, dir, () => assert.fail('no file is read')), (error: unknown) => error instanceof EdgeSdkError && error.kind === 'identity-file' && pattern.test(error.message));

describe('the identity file reader', () => {
  it('reads the file `ziti edge enroll` writes: ztAPI at the root, pem: values, ztAPIs null', () => {
    const text = JSON.stringify({ ztAPI: 'https://127.0.0.1:1280', ztAPIs: null, configTypes: null, id: { key: `pem:${key}`, cert: `pem:${cert}`, ca: `pem:${ca}` }, enableHa: false });
    assert.deepEqual(parseIdentityFile(text, dir), { controllerUrls: ['https://127.0.0.1:1280/edge/client/v1'], cert, key, ca });
  });

  it('reads file:// values, absolute or relative to the identity file, and lets ztAPIs supersede ztAPI', () => {
    writeFileSync(join(dir, 'id.key'), key);
    writeFileSync(join(dir, 'ca.pem'), ca);
    const path = join(dir, 'id.json');
    writeFileSync(path, JSON.stringify({ ztAPI: 'https://a:1', ztAPIs: ['https://b:2/edge/client/v1', 'https://c:3/'], id: { key: 'file://id.key', cert: `pem:${cert}`, ca: `file://${join(dir, 'ca.pem')}` } }));
    const identity = readIdentityFile(path);
    assert.deepEqual(identity.controllerUrls, ['https://b:2/edge/client/v1', 'https://c:3/edge/client/v1']);
    assert.equal(identity.key, key);
    assert.equal(identity.ca, ca);
  });

  it('refuses what is not an identity file, naming the key at fault', () => {
    refused('not json', /not JSON/);
    refused('[]', /not a JSON object/);
    refused(JSON.stringify({ id: { key: `pem:${key}`, cert: `pem:${cert}`, ca: `pem:${ca}` } }), /ztAPI \(or ztAPIs\) is missing/);
    refused(JSON.stringify({ ztAPI: 'http://x:1', id: {} }), /is not https/);
    refused(JSON.stringify({ ztAPI: 'nope', id: {} }), /is not a URL/);
    refused(JSON.stringify({ ztAPI: 'https://x:1' }), /id is missing/);
    refused(JSON.stringify({ ztAPI: 'https://x:1', id: { key: `pem:${key}`, ca: `pem:${ca}` } }), /id\.cert is missing/);
    refused(JSON.stringify({ ztAPI: 'https://x:1', id: { key: 'engine:pkcs11?slot=0', cert: `pem:${cert}`, ca: `pem:${ca}` } }), /id\.key is neither pem: nor file:\/\//);
  });

  it('says which file a file:// value names when it cannot be read, and which identity file is missing', () => {
    const text = JSON.stringify({ ztAPI: 'https://x:1', id: { key: 'file://missing.key', cert: `pem:${cert}`, ca: `pem:${ca}` } });
    assert.throws(() => parseIdentityFile(text, dir), (error: unknown) => error instanceof EdgeSdkError && error.message.includes(join(dir, 'missing.key')) && error.message.includes('id.key'));
    assert.throws(() => readIdentityFile(join(dir, 'nothing.json')), (error: unknown) => error instanceof EdgeSdkError && error.kind === 'identity-file' && error.message.includes('nothing.json'));
  });

  it('takes the client API base from a root or versioned URL alike', () => {
    assert.equal(clientApiBase('https://ctrl:1280'), 'https://ctrl:1280/edge/client/v1');
    assert.equal(clientApiBase('https://ctrl:1280/edge/client/v1/'), 'https://ctrl:1280/edge/client/v1');
  });
});
