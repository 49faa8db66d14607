import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rootPathAlias } from './root-path-alias.ts';

test('a root path that means nothing else is the client API path, where the client API is bound', () => {
  assert.equal(rootPathAlias('/authenticate', true), '/edge/client/v1/authenticate');
  assert.equal(rootPathAlias('/version', true), '/edge/client/v1/version');
  assert.equal(rootPathAlias('/current-identity/edge-routers', true), '/edge/client/v1/current-identity/edge-routers');
  assert.equal(rootPathAlias('/services/abc', true), '/edge/client/v1/services/abc');
  // A path starting with a reserved name but not under it is still the client's.
  assert.equal(rootPathAlias('/metricsx', true), '/edge/client/v1/metricsx');
  assert.equal(rootPathAlias('/edgey', true), '/edge/client/v1/edgey');
});

test('the root paths with their own meaning are never renamed', () => {
  for (const path of ['/', '/edge', '/edge/management/v1/identities', '/edge/client/v1/version', '/fabric/v1/cluster/list-members', '/fabric', '/.well-known/est/cacerts', '/.well-known/openid-configuration', '/health-checks', '/health-checks/x', '/metrics']) {
    assert.equal(rootPathAlias(path, true), undefined, path);
  }
});

test('without the client API bound, only the legacy /edge/v1 prefix is renamed', () => {
  assert.equal(rootPathAlias('/authenticate', false), undefined);
  assert.equal(rootPathAlias('/version', false), undefined);
  assert.equal(rootPathAlias('/edge/v1/authenticate', false), '/edge/client/v1/authenticate');
  assert.equal(rootPathAlias('/edge/v1', true), '/edge/client/v1');
});
