import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memberTable } from './member-table.ts';

test('the member table matches the real CLI layout (golden)', () => {
  const table = memberTable([
    { id: 'ctrl1', address: 'tls:127.0.0.1:6262', voter: true, leader: true, version: 'v0.1.0', connected: true, preferred: true },
    { id: 'ctrl2', address: 'tls:127.0.0.1:6263', voter: true, leader: false, version: '<not connected>', connected: false, preferred: false },
  ]);
  assert.equal(
    table,
    [
      '╭───────┬────────────────────┬───────┬────────┬─────────────────┬───────────┬───────────╮',
      '│ ID    │ ADDRESS            │ VOTER │ LEADER │ VERSION         │ CONNECTED │ PREFERRED │',
      '├───────┼────────────────────┼───────┼────────┼─────────────────┼───────────┼───────────┤',
      '│ ctrl1 │ tls:127.0.0.1:6262 │ true  │ true   │ v0.1.0          │ true      │ true      │',
      '│ ctrl2 │ tls:127.0.0.1:6263 │ true  │ false  │ <not connected> │ false     │ false     │',
      '╰───────┴────────────────────┴───────┴────────┴─────────────────┴───────────┴───────────╯',
      '',
    ].join('\n'),
  );
});
