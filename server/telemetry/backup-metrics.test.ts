import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition } from '../../test/support/prometheus-text.ts';
import { BackupMetrics } from './backup-metrics.ts';
import { ControllerMetrics } from './controller-metrics.ts';

test('backups count by trigger and result from 0; the last success\'s time, size and duration, and the interval, are gauges', async () => {
  const metrics = new ControllerMetrics({ controllerId: 'c1', version: 'v1', appliedIndex: () => 0, apiSessionCount: () => 0, isLeader: () => true });
  try {
    const backups = new BackupMetrics(metrics.meter, 6 * 3600_000);
    let families = parseExposition(await metrics.text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      families.get(name)?.samples.find((sample) => Object.entries(labels).every(([key, expected]) => sample.labels[key] === expected))?.value;
    assert.equal(families.get('edgeward_backups_total')?.samples.length, 4);
    assert.ok(families.get('edgeward_backups_total')?.samples.every((sample) => sample.value === 0));
    assert.equal(value('edgeward_backup_last_success_timestamp_seconds'), 0, '0 until the first');
    assert.equal(value('edgeward_backup_last_size_bytes'), 0);
    assert.equal(value('edgeward_backup_last_duration_seconds'), 0);
    assert.equal(value('edgeward_backup_interval_seconds'), 21_600);

    backups.record({ ok: true, trigger: 'schedule', written: { sizeBytes: 4096, takenAt: '2026-11-29T17:00:00.500Z', durationMs: 250 } });
    backups.record({ ok: false, trigger: 'schedule', error: 'EACCES' });
    backups.record({ ok: false, trigger: 'request', error: 'ENOSPC' });
    backups.record({ ok: true, trigger: 'request', written: { sizeBytes: 8192, takenAt: '2026-11-29T17:05:00Z', durationMs: 1500 } });
    families = parseExposition(await metrics.text());
    assert.equal(value('edgeward_backups_total', { trigger: 'schedule', result: 'success' }), 1);
    assert.equal(value('edgeward_backups_total', { trigger: 'schedule', result: 'failure' }), 1);
    assert.equal(value('edgeward_backups_total', { trigger: 'request', result: 'failure' }), 1);
    assert.equal(value('edgeward_backups_total', { trigger: 'request', result: 'success' }), 1);
    assert.equal(value('edgeward_backup_last_success_timestamp_seconds'), Date.parse('2026-11-29T17:05:00Z') / 1000);
    assert.equal(value('edgeward_backup_last_size_bytes'), 8192);
    assert.equal(value('edgeward_backup_last_duration_seconds'), 1.5);

    backups.record({ ok: false, trigger: 'schedule', error: 'EIO' });
    families = parseExposition(await metrics.text());
    assert.equal(value('edgeward_backup_last_size_bytes'), 8192, 'a failure leaves the last success as it was');
  } finally {
    await metrics.close();
  }
});

test('the interval gauge is 0 when the schedule is off', async () => {
  const metrics = new ControllerMetrics({ controllerId: 'c1', version: 'v1', appliedIndex: () => 0, apiSessionCount: () => 0, isLeader: () => true });
  try {
    new BackupMetrics(metrics.meter, 0);
    assert.equal(parseExposition(await metrics.text()).get('edgeward_backup_interval_seconds')?.samples[0]?.value, 0);
  } finally {
    await metrics.close();
  }
});

test('a restarted controller reports the last backup a previous run left until a newer one; an older one changes nothing', async () => {
  const metrics = new ControllerMetrics({ controllerId: 'c1', version: 'v1', appliedIndex: () => 0, apiSessionCount: () => 0, isLeader: () => true });
  try {
    const backups = new BackupMetrics(metrics.meter, 3600_000);
    const value = async (name: string) => parseExposition(await metrics.text()).get(name)?.samples[0]?.value;
    backups.seedLast({ takenAt: '2026-11-29T10:00:00Z', sizeBytes: 5000 });
    assert.equal(await value('edgeward_backup_last_success_timestamp_seconds'), Date.parse('2026-11-29T10:00:00Z') / 1000);
    assert.equal(await value('edgeward_backup_last_size_bytes'), 5000);
    assert.equal(await value('edgeward_backups_total'), 0, 'found on disk, not written by this run');
    backups.record({ ok: true, trigger: 'schedule', written: { sizeBytes: 6000, takenAt: '2026-11-29T11:00:00Z', durationMs: 100 } });
    backups.seedLast({ takenAt: '2026-11-29T10:30:00Z', sizeBytes: 1 });
    assert.equal(await value('edgeward_backup_last_size_bytes'), 6000);
  } finally {
    await metrics.close();
  }
});
