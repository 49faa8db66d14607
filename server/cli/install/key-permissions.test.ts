import assert from 'node:assert/strict';
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pkiDir, restrictControllerKeys } from './key-permissions.ts';

test('keys an earlier install left readable by group edgeward go to group edgeward-controller; other files and groups stay', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeward-keys-'));
  try {
    const shared = 64950;
    const controller = 64951;
    mkdirSync(join(root, pkiDir), { recursive: true });
    const file = (name: string, mode: number, gid: number) => {
      writeFileSync(join(root, pkiDir, name), 'x', { mode });
      chownSync(join(root, pkiDir, name), 0, gid);
    };
    file('ctrl1.key.pem', 0o640, shared);
    file('signing.key.pem', 0o644, shared);
    file('ca-bundle.pem', 0o644, shared);
    file('own.key.pem', 0o600, 0);
    assert.deepEqual(restrictControllerKeys(root, shared, controller), [`${pkiDir}/ctrl1.key.pem`, `${pkiDir}/signing.key.pem`]);
    for (const name of ['ctrl1.key.pem', 'signing.key.pem']) {
      const stat = statSync(join(root, pkiDir, name));
      assert.equal(stat.gid, controller, name);
      assert.equal(stat.mode & 0o777, 0o640, `${name}: no one else reads it`);
    }
    assert.equal(statSync(join(root, pkiDir, 'ca-bundle.pem')).gid, shared, 'the CA bundle stays readable');
    assert.equal(statSync(join(root, pkiDir, 'own.key.pem')).gid, 0, 'a key the operator gave another group is left alone');
    assert.deepEqual(restrictControllerKeys(root, shared, controller), [], 'a second run changes nothing');
    assert.deepEqual(restrictControllerKeys(join(root, 'nowhere'), shared, controller), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
