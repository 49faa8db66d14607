import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LinkListenerInfo } from '../../common/control-channel/control-messages.ts';
import { linkReachKey, linkReachOf, mayLink, readDialerGroups } from './link-reach.ts';

const listener = (groups: string[]): LinkListenerInfo => ({ binding: 'transport', advertise: 'tls:127.0.0.1:4000', groups });

test('two routers may link when a dialer of one shares a group with a listener of the other, either way round', () => {
  const dialsBlue = linkReachOf([], ['blue']);
  const listensBlue = linkReachOf([listener(['blue'])], []);
  const listensRed = linkReachOf([listener(['red'])], []);
  assert.equal(mayLink(dialsBlue, listensBlue), true);
  assert.equal(mayLink(listensBlue, dialsBlue), true, 'the listener needs the dialer too (to check its certificate)');
  assert.equal(mayLink(dialsBlue, listensRed), false);
  assert.equal(mayLink(listensBlue, listensRed), false, 'two that only listen never link');
  assert.equal(mayLink(dialsBlue, linkReachOf([], ['blue'])), false, 'two that only dial never link');
});

test('a listener without groups is in default; a router that did not say what it dials dials every listener', () => {
  assert.equal(mayLink(linkReachOf([], ['default']), linkReachOf([listener([])], [])), true);
  const older = linkReachOf([], undefined);
  assert.equal(mayLink(older, linkReachOf([listener(['anything'])], [])), true);
  assert.equal(mayLink(older, linkReachOf([], [])), false, 'but not a router with no listener that dials nothing');
});

test('routers with the same listener and dialer groups share a key, in any order; others do not', () => {
  assert.equal(linkReachKey(linkReachOf([listener(['b', 'a'])], ['x', 'y'])), linkReachKey(linkReachOf([listener(['a']), listener(['b'])], ['y', 'x'])));
  assert.notEqual(linkReachKey(linkReachOf([], undefined)), linkReachKey(linkReachOf([], [])));
  assert.notEqual(linkReachKey(linkReachOf([listener(['a'])], [])), linkReachKey(linkReachOf([], ['a'])));
});

test('a hello\'s linkDialerGroups must be a short list of non-empty strings', () => {
  assert.deepEqual(readDialerGroups(['a', 'b']), { ok: true, groups: ['a', 'b'] });
  for (const bad of ['a', [1], [''], ['x'.repeat(257)], Array.from({ length: 65 }, (_, i) => `g${i}`), null]) {
    assert.equal(readDialerGroups(bad).ok, false, JSON.stringify(bad)?.slice(0, 40));
  }
});
