import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IntegrityReport } from '../edge/database-admin.ts';
import { integrityReportFailed, integrityReportText } from './integrity-report-text.ts';

const report = (changes: Partial<IntegrityReport>): IntegrityReport => ({
  inProgress: false, fixingErrors: false, tooManyErrors: false, startTime: '2026-11-29T17:00:00.000Z', endTime: '2026-11-29T17:00:00.250Z', error: '', results: [], ...changes,
});

test('a clean report is one line and leaves nothing to do', () => {
  assert.equal(integrityReportText(report({})), 'data integrity check from 2026-11-29T17:00:00.000Z to 2026-11-29T17:00:00.250Z: no findings\n');
  assert.equal(integrityReportFailed(report({})), false);
});

test('each finding is listed with whether it was fixed; one not fixed, a failed run or a cut list leaves work', () => {
  const fixing = report({ fixingErrors: true, error: 'a fix was refused: leaderless', results: [{ description: 'authenticator a2 (cert) belongs to identity bob, which does not exist', fixed: true }, { description: 'config c (c) is of config type t, which does not exist; not fixed: ...', fixed: false }] });
  assert.equal(
    integrityReportText(fixing),
    [
      'data integrity check and fix from 2026-11-29T17:00:00.000Z to 2026-11-29T17:00:00.250Z: 2 findings, 1 fixed, 1 not fixed',
      '  fixed      authenticator a2 (cert) belongs to identity bob, which does not exist',
      '  not fixed  config c (c) is of config type t, which does not exist; not fixed: ...',
      'error: a fix was refused: leaderless',
      '',
    ].join('\n'),
  );
  assert.equal(integrityReportFailed(fixing), true);
  const allFixed = report({ fixingErrors: true, results: [{ description: 'x', fixed: true }] });
  assert.equal(integrityReportFailed(allFixed), false);
  assert.equal(integrityReportFailed({ ...allFixed, tooManyErrors: true }), true);
  assert.match(integrityReportText({ ...allFixed, tooManyErrors: true }), /more findings than listed: only the first 1 are shown/);
});

test('before any check, and while one runs, the report says so', () => {
  assert.equal(integrityReportText(report({ startTime: new Date(0).toISOString(), endTime: new Date(0).toISOString() })), 'no data integrity check has run on this controller since it started\n');
  assert.equal(integrityReportText(report({ inProgress: true, fixingErrors: true })), 'a data integrity check and fix is running on this controller since 2026-11-29T17:00:00.000Z\n');
});
