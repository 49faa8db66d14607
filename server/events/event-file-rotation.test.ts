import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backupsToRemove, rotatedFiles, rotatedName } from './event-file-rotation.ts';

test('a rotated file is named <name>-<UTC time with dashes>.<ext> beside the file, as lumberjack names it', () => {
  const at = new Date('2026-11-24T04:05:06.789Z');
  assert.equal(rotatedName('/var/log/edgeward/events.jsonl', at), 'events-2026-11-24T04-05-06.789.jsonl');
  assert.equal(rotatedName('/var/log/events', at), 'events-2026-11-24T04-05-06.789', 'no extension: none added');
  assert.equal(rotatedName('/var/log/ctrl.events.json', at), 'ctrl.events-2026-11-24T04-05-06.789.json');
});

test('only the file’s own rotated files count, oldest first', () => {
  const names = [
    'events.jsonl',
    'events-2026-11-24T04-05-07.000.jsonl',
    'events-2026-11-23T23-59-59.999.jsonl',
    'events-notes.jsonl',
    'other-2026-11-24T04-05-06.789.jsonl',
    'events-2026-11-24T04-05-06.789.json',
    'events-2026-11-24T04-05-08.000.jsonl.gz',
  ];
  assert.deepEqual(rotatedFiles('/logs/events.jsonl', names), ['events-2026-11-23T23-59-59.999.jsonl', 'events-2026-11-24T04-05-07.000.jsonl']);
});

test('pruning keeps the newest maxbackups rotated files; 0 keeps them all', () => {
  const names = ['events.jsonl', 'events-2026-11-24T00-00-03.000.jsonl', 'events-2026-11-24T00-00-01.000.jsonl', 'events-2026-11-24T00-00-02.000.jsonl'];
  assert.deepEqual(backupsToRemove('/logs/events.jsonl', names, 1), ['events-2026-11-24T00-00-01.000.jsonl', 'events-2026-11-24T00-00-02.000.jsonl']);
  assert.deepEqual(backupsToRemove('/logs/events.jsonl', names, 3), []);
  assert.deepEqual(backupsToRemove('/logs/events.jsonl', names, 0), []);
});
