import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkReachOf } from './link-reach.ts';
import { RouterAnnouncements } from './router-announcements.ts';

const listensG = linkReachOf([{ binding: 'transport', advertise: 'tls:127.0.0.1:4000', groups: ['g'] }], []);
const dialsG = linkReachOf([], ['g']);
const neither = linkReachOf([], []);

test('a batch names each router once, in its latest state, and is emptied when taken', () => {
  const batch = new RouterAnnouncements();
  batch.connected({ id: 'a', name: 'a', linkListeners: [] }, dialsG);
  batch.connected({ id: 'b', name: 'b', linkListeners: [] }, dialsG);
  batch.disconnected('a', dialsG);
  batch.connected({ id: 'c', name: 'c', linkListeners: [] }, dialsG);
  batch.disconnected('c', dialsG);
  batch.connected({ id: 'c', name: 'c-again', linkListeners: [] }, dialsG);
  assert.equal(batch.size, 3);
  const messageFor = batch.take();
  assert.equal(batch.size, 0);
  assert.deepEqual(messageFor(listensG), { type: 'ctrl.routersChanged', connected: [{ id: 'b', name: 'b', linkListeners: [] }, { id: 'c', name: 'c-again', linkListeners: [] }], disconnected: ['a'] });
});

test('each receiver is told of just the routers it may link with; a departure of unknown reach goes to all; receivers alike share one message', () => {
  const batch = new RouterAnnouncements();
  batch.connected({ id: 'dialer', name: 'd', linkListeners: [] }, dialsG);
  batch.disconnected('unknown', undefined);
  const messageFor = batch.take();
  assert.deepEqual(messageFor(listensG)?.connected.map((router) => router.id), ['dialer']);
  assert.deepEqual(messageFor(neither), { type: 'ctrl.routersChanged', connected: [], disconnected: ['unknown'] });
  assert.equal(messageFor(listensG), messageFor(linkReachOf([{ binding: 'transport', advertise: 'tls:10.0.0.1:1', groups: ['g'] }], [])), 'one object for the same reach');
  const quiet = new RouterAnnouncements();
  quiet.connected({ id: 'x', name: 'x', linkListeners: [] }, dialsG);
  assert.equal(quiet.take()(dialsG), undefined, 'nothing to say: no message');
});
