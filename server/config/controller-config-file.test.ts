import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { controllerConfigExample } from './controller-config.ts';
import { readControllerConfig } from './controller-config-file.ts';

describe('readControllerConfig', () => {
  it('reads a file and resolves its relative paths against the file, not the working directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-config-'));
    try {
      const file = join(dir, 'ctrl.yml');
      writeFileSync(
        file,
        controllerConfigExample({ id: 'ctrl1', dataDir: 'data', pkiPaths: { cert: 'pki/c.pem', key: 'pki/k.pem', ca: 'pki/ca.pem' }, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262' }),
      );
      const { config, problems } = await readControllerConfig(relative(process.cwd(), file), {});
      assert.deepEqual(problems, []);
      assert.equal(config?.cluster.dataDir, join(dir, 'data'));
      assert.equal(config?.identity.ca, join(dir, 'pki', 'ca.pem'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses the environment it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeward-config-'));
    try {
      const file = join(dir, 'ctrl.yml');
      const yaml = controllerConfigExample({ id: 'c', dataDir: 'data', pkiPaths: { cert: 'c', key: 'k', ca: 'ca' }, webAddress: '127.0.0.1:1280', ctrlAddress: 'tls:127.0.0.1:6262' });
      writeFileSync(file, yaml.replace('dataDir: "data"', 'dataDir: "${DATA}/raft"'));
      const { config } = await readControllerConfig(file, { DATA: '/var/lib/edgeward' });
      assert.equal(config?.cluster.dataDir, '/var/lib/edgeward/raft');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a missing file as a problem instead of throwing', async () => {
    const { config, problems } = await readControllerConfig(join(tmpdir(), 'edgeward-no-such-dir', 'ctrl.yml'), {});
    assert.equal(config, undefined);
    assert.deepEqual(problems, [{ severity: 'error', path: '', rule: 'read', message: 'cannot read the config file: no such file' }]);
  });
});
