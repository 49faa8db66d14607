// The indexed routers-per-identity answer against edge-router-access.ts's walk over every policy and router, over
// random models: AnyOf and AllOf policies, `#all`, `@id` roles, empty role lists, transit and tunneler-enabled
// routers, identities named by id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { seededRandom as random } from '../raft/sim/seeded-random.ts';
import { routersForIdentity } from './edge-router-access.ts';
import { IdentityRouterIndex } from './identity-router-index.ts';

for (const seed of [1, 2, 3, 4, 5, 6]) {
  test(`the routers an identity may use, from the index, are those the walk over every policy and router gives (seed ${seed})`, () => {
    const next = random(seed);
    const int = (n: number) => Math.floor(next() * n);
    const attributes = ['a', 'b', 'c', 'd', 'e'];
    const some = () => Array.from({ length: int(3) }, () => attributes[int(attributes.length)]!);
    const identityIds = Array.from({ length: 30 }, (_, i) => `i${i}`);
    // Some routers share an identity's id: a tunneler-enabled one is that identity's own (its system policy).
    const routers: EdgeRouter[] = Array.from({ length: 40 }, (_, i) => ({
      id: i < 8 ? `i${i}` : `r${i}`,
      roleAttributes: some(),
      isTunnelerEnabled: next() < 0.5,
      isTransitRouter: next() < 0.15,
    })) as unknown as EdgeRouter[];
    const role = (ids: readonly string[]) => (next() < 0.25 ? `@${ids[int(ids.length)]}` : `#${attributes[int(attributes.length)]}`);
    const roles = (ids: readonly string[]) => (next() < 0.1 ? ['#all'] : next() < 0.05 ? [] : Array.from({ length: 1 + int(3) }, () => role(ids)));
    const policies: EdgeRouterPolicy[] = Array.from({ length: 25 }, (_, i) => ({
      id: `p${String(i).padStart(2, '0')}`,
      name: `p${i}`,
      semantic: next() < 0.5 ? 'AnyOf' : 'AllOf',
      identityRoles: roles(identityIds),
      edgeRouterRoles: roles(routers.map((router) => router.id)),
    })) as unknown as EdgeRouterPolicy[];
    const index = new IdentityRouterIndex({ routers, policies });
    for (let k = 0; k < 200; k++) {
      const identity = { id: identityIds[int(identityIds.length)]!, roleAttributes: some() };
      const expected = [...routersForIdentity(identity, { routers, policies })].sort();
      assert.deepEqual([...index.routerIdsFor(identity)].sort(), expected, `identity ${identity.id} [${identity.roleAttributes.join(',')}]`);
      // Asked again: the same answer from what was kept.
      assert.deepEqual([...index.routerIdsFor(identity)].sort(), expected);
    }
  });
}
