// A controller that starts with backups in its schedule's folder reports the newest of them as its last backup (on
// /metrics, hence on the status page and to EdgewardBackupsStopped), not "no backup yet", until it writes a newer one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { initPki } from '../common/pki/pki-directory.ts';
import { backupFileName, writeBackupFile } from '../server/store/model-backup-file.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { parseExposition } from './support/prometheus-text.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-backup-restart-'));
let controller: ControllerFixture | undefined;
after(async () => {
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('the newest backup a previous run left is the last backup after a start', async () => {
  const backupDir = join(root, 'backups');
  const header = { edgewardVersion: 'v0', clusterId: 'c0ffee00-0000', trustDomain: 'edgeward.test', controllerId: 'ctrl1', index: 7, term: 2 };
  await writeBackupFile(join(backupDir, backupFileName(7, '2026-11-28T08:00:00.000Z')), { ...header, takenAt: '2026-11-28T08:00:00.000Z' }, { identities: [] });
  const newest = await writeBackupFile(join(backupDir, backupFileName(9, '2026-11-28T09:00:00.000Z')), { ...header, index: 9, takenAt: '2026-11-28T09:00:00.000Z' }, { identities: [{ id: 'x' }] });
  const hourly = (yaml: string) => {
    const edited = yaml.replace(/\n {4}interval: 6h[^\n]*\n {4}# dir:[^\n]*\n {4}retain: 8[^\n]*\n/, `\n    interval: 1h\n    dir: ${JSON.stringify(backupDir)}\n    retain: 3\n`);
    assert.notEqual(edited, yaml);
    return edited;
  };
  await initPki(join(root, 'pki'), { trustDomain: 'edgeward.test' });
  controller = await ControllerFixture.create({ pkiDir: join(root, 'pki'), id: 'ctrl1', editConfig: hourly });
  const gauge = async (name: string) => parseExposition((await controller!.http.get(`${controller!.origin}/metrics`)).text).get(name)?.samples[0]?.value;
  await until('the last backup found on disk', async () => (await gauge('edgeward_backup_last_success_timestamp_seconds')) === Date.parse('2026-11-28T09:00:00.000Z') / 1000, 20_000);
  assert.equal(await gauge('edgeward_backup_last_size_bytes'), newest.sizeBytes);
  assert.equal(await gauge('edgeward_backups_total'), 0, 'nothing written by this run');
});
