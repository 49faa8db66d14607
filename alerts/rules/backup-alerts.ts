// Warnings about each controller's online backups (`cluster.backup`): backups that stopped (the newest successful
// one older than a few intervals, on a controller whose schedule is on and that has been up that long), and
// scheduled backups that fail. The interval is read from the controller's own gauge, so one rule fits every
// controller's `cluster.backup.interval`.
import { monitoringMixin } from '../mixin/monitoring-mixin.ts';
import { byController, controllerSeries, inWords } from './promql-fragments.ts';
import type { AlertRule } from './rule-model.ts';
import { controllerTarget, repeat, series, testCluster, type Sample } from './testing/test-series.ts';

const { intervals, for: stoppedFor } = monitoringMixin.backupsStopped;
const interval = controllerSeries('edgeward_backup_interval_seconds');
/** A scheduled-backup series each minute for `minutes`: `step(minute)` gives its value. */
const perMinute = (minutes: number, step: (minute: number) => Sample): Sample[] => Array.from({ length: minutes }, (_, minute) => step(minute));

export const backupsStopped: AlertRule = {
  name: 'EdgewardBackupsStopped',
  expr: [
    `max by (${byController}) (time() - ${controllerSeries('edgeward_backup_last_success_timestamp_seconds')})`,
    `  > on(${byController}) max by (${byController}) (${intervals} * ${interval} > 0)`,
    `and on(${byController})`,
    `max by (${byController}) (time() - ${controllerSeries('edgeward_process_start_time_seconds')})`,
    `  > on(${byController}) max by (${byController}) (${intervals} * ${interval})`,
  ].join('\n'),
  for: stoppedFor,
  valueFormat: 'humanizeDuration',
  detail: ({ label, value }) =>
    `Controller ${label('controller')} of cluster ${label('cluster')} wrote its last successful backup ${value} ago (or none since it started), more than ${intervals} times its cluster.backup.interval, for more than ${stoppedFor}.`,
  rationale: `Each controller exposes its schedule's interval (0 when off) and the time of its last successful backup. ${intervals} intervals without one is two scheduled backups missed in a row, not one slow disk; a controller up for less than that has not had the chance yet (its gauge is 0 until its first backup), and one whose schedule is off never warns.`,
  tests: [
    {
      name: 'EdgewardBackupsStopped fires when a controller writes no backup for 2.5 intervals',
      interval: '1m',
      series: [
        series('edgeward_backup_interval_seconds', controllerTarget('ctrl1'), repeat(600, 60)),
        series('edgeward_process_start_time_seconds', controllerTarget('ctrl1'), repeat(0, 60)),
        // Backups at 10 and 20 minutes, none after.
        series('edgeward_backup_last_success_timestamp_seconds', controllerTarget('ctrl1'), perMinute(60, (minute) => (minute < 10 ? 0 : minute < 20 ? 600 : 1200))),
      ],
      checks: [
        { at: '44m', firing: [] },
        { at: '52m', firing: [{ labels: { cluster: testCluster, controller: 'ctrl1' }, value: '32m 0s' }] },
      ],
    },
    {
      name: 'EdgewardBackupsStopped stays silent for steady backups, a schedule turned off, and a controller just started',
      interval: '1m',
      series: [
        series('edgeward_backup_interval_seconds', controllerTarget('ctrl1'), repeat(600, 60)),
        series('edgeward_process_start_time_seconds', controllerTarget('ctrl1'), repeat(0, 60)),
        series('edgeward_backup_last_success_timestamp_seconds', controllerTarget('ctrl1'), perMinute(60, (minute) => Math.floor(minute / 10) * 600)),
        series('edgeward_backup_interval_seconds', controllerTarget('ctrl2'), repeat(0, 60)),
        series('edgeward_process_start_time_seconds', controllerTarget('ctrl2'), repeat(0, 60)),
        series('edgeward_backup_last_success_timestamp_seconds', controllerTarget('ctrl2'), repeat(0, 60)),
        // Started at 30 minutes: no backup yet, but not up for 2.5 intervals either.
        series('edgeward_backup_interval_seconds', controllerTarget('ctrl3'), [...repeat('missing', 30), ...repeat(600, 30)]),
        series('edgeward_process_start_time_seconds', controllerTarget('ctrl3'), [...repeat('missing', 30), ...repeat(1800, 30)]),
        series('edgeward_backup_last_success_timestamp_seconds', controllerTarget('ctrl3'), [...repeat('missing', 30), ...repeat(0, 30)]),
      ],
      checks: [
        { at: '30m', firing: [] },
        { at: '54m', firing: [] },
      ],
    },
  ],
};

const { window: failingWindow, for: failingFor } = monitoringMixin.backupsFailing;
const scheduled = (result: 'success' | 'failure') => controllerSeries('edgeward_backups_total', 'trigger="schedule"', `result="${result}"`);

export const backupsFailing: AlertRule = {
  name: 'EdgewardBackupsFailing',
  expr: [
    `sum by (${byController}) (increase(${scheduled('failure')}[${failingWindow}])) > 0`,
    `unless on(${byController})`,
    `sum by (${byController}) (increase(${scheduled('success')}[${failingWindow}])) > 0`,
  ].join('\n'),
  for: failingFor,
  detail: ({ label }) =>
    `Controller ${label('controller')} of cluster ${label('cluster')} failed scheduled backups in the last ${inWords(failingWindow)} and wrote none, for more than ${failingFor}.`,
  rationale: `A failure followed by a success within ${inWords(failingWindow)} is a blip; failures with no success in ${inWords(failingWindow)} are a folder that cannot be written. With an interval of an hour or more every failure warns at once, long before EdgewardBackupsStopped (${intervals} intervals); backups an operator asks for (trigger="request") fail in front of them and do not count.`,
  tests: [
    {
      name: 'EdgewardBackupsFailing fires when scheduled backups keep failing and none succeeds for an hour',
      interval: '1m',
      series: [
        // Successes at 10, 20 and 30 minutes; from 40 minutes every one fails.
        series('edgeward_backups_total', { ...controllerTarget('ctrl1'), trigger: 'schedule', result: 'success' }, perMinute(110, (minute) => Math.min(3, Math.floor(minute / 10)))),
        series('edgeward_backups_total', { ...controllerTarget('ctrl1'), trigger: 'schedule', result: 'failure' }, perMinute(110, (minute) => Math.max(0, Math.floor(minute / 10) - 3))),
      ],
      checks: [
        { at: '45m', firing: [] },
        { at: '85m', firing: [] },
        { at: '100m', firing: [{ labels: { cluster: testCluster, controller: 'ctrl1' } }] },
      ],
    },
    {
      name: 'EdgewardBackupsFailing stays silent for one failure between successes, and for failed requested backups',
      interval: '1m',
      series: [
        series('edgeward_backups_total', { ...controllerTarget('ctrl1'), trigger: 'schedule', result: 'success' }, perMinute(110, (minute) => Math.floor(minute / 10))),
        series('edgeward_backups_total', { ...controllerTarget('ctrl1'), trigger: 'schedule', result: 'failure' }, perMinute(110, (minute) => (minute < 35 ? 0 : 1))),
        series('edgeward_backups_total', { ...controllerTarget('ctrl2'), trigger: 'request', result: 'failure' }, perMinute(110, (minute) => minute)),
        series('edgeward_backups_total', { ...controllerTarget('ctrl2'), trigger: 'schedule', result: 'failure' }, repeat(0, 110)),
      ],
      checks: [
        { at: '40m', firing: [] },
        { at: '100m', firing: [] },
      ],
    },
  ],
};
