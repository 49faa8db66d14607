import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { emptyDeliveryState } from '../core/delivery/delivery-queue.ts';
import { emptyEvaluatorState } from '../core/evaluator/evaluator-state.ts';
import { StateFile, stateFileName } from './state-file.ts';
import type { DaemonState } from './state-file.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-state-'));
after(() => rmSync(root, { recursive: true, force: true }));

const state: DaemonState = {
  version: 1,
  savedAt: '2026-01-01T00:00:00.000Z',
  files: { '/var/log/ctrl1.log': { dev: '2049', ino: '18446744073709551615', offset: 1234 } },
  evaluator: { ...emptyEvaluatorState(), oneShot: { 'EdgewardRaftNodeFailed{controller="ctrl1"}': 5 } },
  delivery: emptyDeliveryState(),
};

describe('StateFile', () => {
  it('creates its directory, and has nothing to load the first time', async () => {
    const dir = join(root, 'first', 'state');
    assert.equal(await new StateFile(dir, createMemoryLogger()).load(), undefined);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('saves the whole state in one file and loads it back, inodes beyond 2^53 included', async () => {
    const dir = mkdtempSync(join(root, 'roundtrip-'));
    const file = new StateFile(dir, createMemoryLogger());
    await file.save(state);
    assert.deepEqual(readdirSync(dir), [stateFileName], 'no temporary file is left');
    assert.deepEqual(await file.load(), state);
  });

  it('replaces the previous state whole', async () => {
    const dir = mkdtempSync(join(root, 'replace-'));
    const file = new StateFile(dir, createMemoryLogger());
    await file.save(state);
    await file.save({ ...state, files: {} });
    assert.deepEqual(JSON.parse(readFileSync(join(dir, stateFileName), 'utf8')).files, {});
  });

  it('moves an unreadable file aside, says why, and starts afresh', async () => {
    const dir = mkdtempSync(join(root, 'corrupt-'));
    writeFileSync(join(dir, stateFileName), '{"version":1,"files":{"/x":{"dev":"1"');
    const logger = createMemoryLogger();
    assert.equal(await new StateFile(dir, logger).load(), undefined);
    const names = readdirSync(dir);
    assert.equal(names.length, 1);
    assert.match(names[0]!, /^alerts-state\.json\.unreadable-\d+$/);
    assert.match(String(logger.lines[0]?.problem), /^not JSON/);
  });

  it('refuses a state of another shape', async () => {
    const dir = mkdtempSync(join(root, 'shape-'));
    writeFileSync(join(dir, stateFileName), JSON.stringify({ ...state, files: { '/x': { dev: 1, ino: 2, offset: 3 } } }));
    const logger = createMemoryLogger();
    assert.equal(await new StateFile(dir, logger).load(), undefined);
    assert.equal(logger.lines[0]?.problem, 'files: not a map of positions');
  });

  it('fills evaluator fields a state from an older daemon lacks', async () => {
    const dir = mkdtempSync(join(root, 'older-'));
    const { latency: _latency, ...olderEvaluator } = emptyEvaluatorState();
    writeFileSync(join(dir, stateFileName), JSON.stringify({ ...state, evaluator: olderEvaluator }));
    const loaded = await new StateFile(dir, createMemoryLogger()).load();
    assert.deepEqual(loaded?.evaluator.latency, {});
  });
});
