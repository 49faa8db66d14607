import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { silentLogger } from '../../common/log/logger.ts';
import { contentFromAddresses, contentFromMembers, formatEndpointsFile, parseEndpointsFile } from './endpoints-file-format.ts';
import { readEndpointsFile, writeEndpointsFile } from './endpoints-file.ts';

describe('endpoints file format', () => {
  it('writes both keys, endpoints and controllers, from the cluster members', () => {
    const text = formatEndpointsFile(contentFromMembers([
      { id: 'ctrl1', address: 'tls:10.0.0.1:6262' },
      { id: 'ctrl2', address: 'tls:[2001:db8::2]:6262' },
    ]));
    assert.deepEqual(parse(text), {
      endpoints: ['tls:10.0.0.1:6262', 'tls:[2001:db8::2]:6262'],
      controllers: [
        { id: 'ctrl1', endpoints: [{ address: 'tls:10.0.0.1:6262' }] },
        { id: 'ctrl2', endpoints: [{ address: 'tls:[2001:db8::2]:6262' }] },
      ],
    });
    assert.deepEqual(parseEndpointsFile(text), { content: contentFromMembers([{ id: 'ctrl1', address: 'tls:10.0.0.1:6262' }, { id: 'ctrl2', address: 'tls:[2001:db8::2]:6262' }]), problems: [] });
  });

  it('reads OpenZiti files: the endpoints key in any case, controllers optional, groups ignored', () => {
    const parsed = parseEndpointsFile('Endpoints:\n  - tls:ctrl1.example.com:1280\n  - tls:ctrl2.example.com:1280\ncontrollers:\n  - id: c1\n    endpoints:\n      - address: tls:ctrl1.example.com:1280\n        groups: [default]\n');
    assert.deepEqual(parsed.content.endpoints, ['tls:ctrl1.example.com:1280', 'tls:ctrl2.example.com:1280']);
    assert.deepEqual(parsed.content.controllers, [{ id: 'c1', endpoints: [{ address: 'tls:ctrl1.example.com:1280' }] }]);
    assert.deepEqual(parsed.problems, []);
  });

  it('drops addresses the control channel cannot dial and says why', () => {
    const parsed = parseEndpointsFile('endpoints: [tcp:a:1, "ctrl:6262", tls:good:6262, tls:good:6262]\n');
    assert.deepEqual(parsed.content.endpoints, ['tls:good:6262']);
    assert.equal(parsed.problems.length, 2);
  });

  it('treats an empty or broken file as naming no endpoint', () => {
    assert.deepEqual(parseEndpointsFile('').content.endpoints, []);
    assert.deepEqual(parseEndpointsFile('endpoints: [').content.endpoints, []);
    assert.deepEqual(parseEndpointsFile('- tls:a:1').content.endpoints, []);
  });

  it('keeps the order of enrollment addresses, without duplicates', () => {
    assert.deepEqual(contentFromAddresses(['tls:b:2', 'tls:a:1', 'tls:b:2']), { endpoints: ['tls:b:2', 'tls:a:1'], controllers: [] });
  });
});

describe('endpoints file on disk', () => {
  it('is written with mode 0600 only when its endpoints change, and read back at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-endpoints-'));
    const path = join(dir, 'endpoints');
    const members = contentFromMembers([{ id: 'c1', address: 'tls:127.0.0.1:1' }]);
    assert.equal(await writeEndpointsFile(path, members), true);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(await writeEndpointsFile(path, members), false);
    assert.equal(await writeEndpointsFile(path, contentFromMembers([{ id: 'c1', address: 'tls:127.0.0.1:1' }, { id: 'c2', address: 'tls:127.0.0.1:2' }])), true);
    assert.deepEqual((await readEndpointsFile(path, silentLogger))?.endpoints, ['tls:127.0.0.1:1', 'tls:127.0.0.1:2']);
    assert.match(readFileSync(path, 'utf8'), /controllers:/);
  });

  it('reads a missing or empty file as absent, so the config endpoints are used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-endpoints-'));
    assert.equal(await readEndpointsFile(join(dir, 'missing'), silentLogger), undefined);
    writeFileSync(join(dir, 'empty'), 'endpoints: []\n');
    assert.equal(await readEndpointsFile(join(dir, 'empty'), silentLogger), undefined);
  });
});
