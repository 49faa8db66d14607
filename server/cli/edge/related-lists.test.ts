import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relatedListOf, relatedListPath } from './related-lists.ts';

test("ziti edge's order and the owner-first order name the same relationship list", () => {
  const zitiOrder = relatedListOf(['identity', 'services', 'alice', 'name = "web"', '--json']);
  assert.equal(zitiOrder?.list.owner.name, 'identity');
  assert.equal(zitiOrder?.list.related.plural, 'services');
  assert.deepEqual(zitiOrder?.rest, ['alice', 'name = "web"', '--json']);
  const ownerFirst = relatedListOf(['identity', 'alice', 'services', 'name = "web"']);
  assert.equal(ownerFirst?.list, zitiOrder?.list);
  assert.deepEqual(ownerFirst?.rest, ['alice', 'name = "web"']);
  assert.equal(relatedListPath(zitiOrder!.list, 'a/b'), '/identities/a%2Fb/services');
  assert.equal(relatedListOf(['service-policy', 'posture-checks', 'p'])?.list.related.name, 'posture-check');
});

test('ordinary lists and relations that do not exist are not relationship lists', () => {
  assert.equal(relatedListOf(['identities', 'name = "x"']), undefined);
  assert.equal(relatedListOf(['identities']), undefined);
  assert.equal(relatedListOf(['identity', 'cas', 'alice']), undefined, 'identities have no CA list');
  assert.equal(relatedListOf(['widgets', 'services', 'x']), undefined);
  assert.equal(relatedListOf(['identity', '--json', 'services']), undefined, 'a flag is not a name');
});
