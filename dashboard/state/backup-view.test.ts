import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePrometheusText } from '../../alerts/core/metrics/prometheus-text.ts';
import { backupView } from './backup-view.ts';
import { readControllerMetrics } from './controller-reading.ts';

const now = Date.UTC(2026, 10, 29, 18, 0, 0);

test('a controller\'s backup gauges: read from /metrics, absent when it has none', () => {
  const text = [
    'edgeward_backup_last_success_timestamp_seconds 1796000000.5',
    'edgeward_backup_last_size_bytes 1572864',
    'edgeward_backup_interval_seconds 21600',
    'edgeward_backups_total{trigger="schedule",result="success"} 3',
  ].join('\n');
  assert.deepEqual(readControllerMetrics(parsePrometheusText(text).samples).backup, { lastSuccessSeconds: 1796000000.5, lastSizeBytes: 1572864, intervalSeconds: 21600 });
  assert.ok(!('backup' in readControllerMetrics(parsePrometheusText('edgeward_raft_term 3').samples)), 'an older controller without the gauges');
});

test('schedule off, no backup yet, written, and stale past 2.5 intervals (the alert\'s threshold)', () => {
  assert.deepEqual(backupView({ lastSuccessSeconds: 0, intervalSeconds: 0 }, now), { state: 'off' });
  assert.deepEqual(backupView({ lastSuccessSeconds: 0, lastSizeBytes: 0, intervalSeconds: 3600 }, now), { state: 'none', intervalSeconds: 3600 });
  const at = now - 2 * 3600_000;
  assert.deepEqual(backupView({ lastSuccessSeconds: at / 1000, lastSizeBytes: 4096, intervalSeconds: 3600 }, now), { state: 'written', at, sizeBytes: 4096, intervalSeconds: 3600 });
  const old = now - 3 * 3600_000;
  assert.deepEqual(backupView({ lastSuccessSeconds: old / 1000, lastSizeBytes: 4096, intervalSeconds: 3600 }, now), { state: 'written', at: old, sizeBytes: 4096, intervalSeconds: 3600, stale: true });
  assert.deepEqual(backupView({ lastSuccessSeconds: old / 1000, lastSizeBytes: 4096, intervalSeconds: 0 }, now), { state: 'written', at: old, sizeBytes: 4096, intervalSeconds: 0 }, 'taken by hand, no schedule: never stale');
});
