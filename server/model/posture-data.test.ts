import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxProcessesPerSession, mergePostureUpdates } from './posture-data.ts';

const t1 = '2026-01-01T00:00:00.000Z';
const t2 = '2026-01-01T00:01:00.000Z';
const process = (postureCheckId: string, path: string, isRunning: boolean) => ({ kind: 'process' as const, postureCheckId, path, isRunning, binaryHash: '', signerFingerprints: [] });

test('each kind of response replaces the previous one of its kind, stamped with the time it was applied', () => {
  const first = mergePostureUpdates(undefined, [{ kind: 'os', type: 'Linux', version: '6.1.0', build: 'x' }, { kind: 'domain', domain: 'corp' }], t1);
  const second = mergePostureUpdates(first, [{ kind: 'os', type: 'Linux', version: '6.2.0', build: 'y' }, { kind: 'mac', addresses: ['aa'] }], t2);
  assert.deepEqual(second, {
    os: { type: 'Linux', version: '6.2.0', build: 'y', lastUpdatedAt: t2 },
    domain: { domain: 'corp', lastUpdatedAt: t1 },
    mac: { addresses: ['aa'], lastUpdatedAt: t2 },
  });
});

test('a process response replaces the one for the same check and path; others stay; the list is bounded', () => {
  let data = mergePostureUpdates(undefined, [process('c1', '/a', true), process('c1', '/b', true)], t1);
  data = mergePostureUpdates(data, [process('c1', '/a', false)], t2);
  assert.deepEqual(data.processes?.map((p) => [p.path, p.isRunning, p.lastUpdatedAt]), [['/b', true, t1], ['/a', false, t2]]);
  const many = Array.from({ length: maxProcessesPerSession + 10 }, (_, i) => process('c', `/p${i}`, true));
  assert.equal(mergePostureUpdates(undefined, many, t1).processes?.length, maxProcessesPerSession);
});

test('an endpoint state moves only the moments it reports', () => {
  const woken = mergePostureUpdates(undefined, [{ kind: 'endpointState', woken: true, unlocked: false }], t1);
  assert.deepEqual(woken.endpointState, { wokenAt: t1, unlockedAt: null });
  const unlocked = mergePostureUpdates(woken, [{ kind: 'endpointState', woken: false, unlocked: true }], t2);
  assert.deepEqual(unlocked.endpointState, { wokenAt: t1, unlockedAt: t2 });
});
