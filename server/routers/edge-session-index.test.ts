import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeSessionIndex } from './edge-session-index.ts';
import type { EdgeSessionRecord } from './edge-session-registry.ts';

const record = (identityId: string, controllerId: string): EdgeSessionRecord => ({ routerId: 'r1', apiSessionId: `s-${identityId}`, identityId, channels: 1, controllerId });

test('an identity is connected by a local record at once, by a remote one after a refresh; a failed refresh keeps the last answer', async () => {
  let local: EdgeSessionRecord[] = [];
  let remote: Promise<EdgeSessionRecord[]> = Promise.resolve([record('i2', 'c2')]);
  let now = 0;
  const index = new EdgeSessionIndex(() => local, () => remote, () => now);
  assert.equal(index.identityConnected('i1'), false);
  local = [record('i1', 'c1')];
  assert.equal(index.identityConnected('i1'), false, 'read again only after a change or the cache time');
  index.localChanged();
  assert.equal(index.identityConnected('i1'), true);
  local = [];
  now = 250;
  assert.equal(index.identityConnected('i1'), false, 'a record that expired (grace) goes within the cache time');
  assert.equal(index.identityConnected('i2'), false, 'not asked yet');
  await index.refresh();
  assert.equal(index.identityConnected('i2'), true);
  remote = Promise.reject(new Error('peer down'));
  await index.refresh();
  assert.equal(index.identityConnected('i2'), true);
  remote = Promise.resolve([]);
  await index.refresh();
  assert.equal(index.identityConnected('i2'), false);
});

test('a refresh asked for while one runs runs once more after it', async () => {
  let calls = 0;
  let release: (records: EdgeSessionRecord[]) => void = () => undefined;
  const index = new EdgeSessionIndex(
    () => [],
    () => {
      calls++;
      return new Promise((resolve) => (release = resolve));
    },
    () => 0,
  );
  const first = index.refresh();
  void index.refresh();
  void index.refresh();
  release([]);
  await first;
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls, 2);
  release([record('i3', 'c3')]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(index.identityConnected('i3'), true);
});
