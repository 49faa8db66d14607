import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpRequestCounts, methodLabel, unmatchedRoute } from './http-request-counts.ts';

const all = (counts: HttpRequestCounts) => [...counts.series()].map(({ value, attributes }) => ({ ...attributes, value }));

test('requests count under their API, route template, method and status code', () => {
  const counts = new HttpRequestCounts();
  counts.add('edge-management', '/identities/:id', 'GET', 200);
  counts.add('edge-management', '/identities/:id', 'GET', 200);
  counts.add('edge-management', '/identities/:id', 'GET', 404);
  assert.deepEqual(all(counts), [
    { api: 'edge-management', route: '/identities/:id', method: 'GET', status: '200', value: 2 },
    { api: 'edge-management', route: '/identities/:id', method: 'GET', status: '404', value: 1 },
  ]);
});

test('an unmatched path gets one fixed route label, and unusual methods are summed as other', () => {
  const counts = new HttpRequestCounts();
  counts.add('root', undefined, 'PROPFIND', 404);
  counts.add('root', undefined, 'MKCOL', 404);
  counts.add('root', undefined, 'GET', 404);
  assert.deepEqual(all(counts), [
    { api: 'root', route: unmatchedRoute, method: 'GET', status: '404', value: 1 },
    { api: 'root', route: unmatchedRoute, method: 'other', status: '404', value: 2 },
  ]);
  assert.equal(methodLabel('DELETE'), 'DELETE');
  assert.equal(methodLabel('get'), 'other');
});
