import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadOrCreateMfaKey } from './mfa-key-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'edgeward-mfa-key-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a missing key file is created once (0600) and read back the same', () => {
  const path = join(dir, 'mfa.key');
  const created = loadOrCreateMfaKey(path);
  assert.equal(created.length, 32);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.match(readFileSync(path, 'utf8'), /^[0-9a-f]{64}\n$/);
  assert.deepEqual(loadOrCreateMfaKey(path), created);
});

test('a malformed key file is refused with a message saying how to make one', () => {
  const path = join(dir, 'bad.key');
  writeFileSync(path, 'not a key');
  assert.throws(() => loadOrCreateMfaKey(path), /64 hex characters.*openssl rand -hex 32/);
});
