import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routersCarryingService, routersForIdentity } from '../edge/edge-router-access.ts';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import { RouterGrantIndex } from './router-grant-index.ts';

const at = '2026-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, name: id, createdAt: at, updatedAt: at, tags: {} });
const router = (id: string, roleAttributes: string[], extra: Partial<EdgeRouter> = {}): EdgeRouter =>
  ({ ...base(id), roleAttributes, isTunnelerEnabled: false, cost: 0, noTraversal: false, disabled: false, appData: {}, isVerified: true, fingerprint: null, certPem: null, enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null, ...extra }) as EdgeRouter;
const routers = [
  router('r1', ['east', 'edge']),
  router('r2', ['west']),
  router('r3', ['east'], { isTunnelerEnabled: true }),
  router('t1', ['east'], { isTransitRouter: true }),
  router('r4', []),
];
const erps: EdgeRouterPolicy[] = [
  { ...base('e1'), semantic: 'AnyOf', identityRoles: ['#ops'], edgeRouterRoles: ['#east'] },
  { ...base('e2'), semantic: 'AllOf', identityRoles: ['#ops', '#dba'], edgeRouterRoles: ['#west'] },
  { ...base('e3'), semantic: 'AnyOf', identityRoles: ['@carol'], edgeRouterRoles: ['@r4', '#edge'] },
  { ...base('e4'), semantic: 'AllOf', identityRoles: ['#all'], edgeRouterRoles: ['#east', '#edge'] },
  { ...base('e5'), semantic: 'AnyOf', identityRoles: [], edgeRouterRoles: ['#all'] },
];
const serps: ServiceEdgeRouterPolicy[] = [
  { ...base('s1'), semantic: 'AnyOf', serviceRoles: ['#web'], edgeRouterRoles: ['#west'] },
  { ...base('s2'), semantic: 'AllOf', serviceRoles: ['#web', '#db'], edgeRouterRoles: ['#all'] },
  { ...base('s3'), semantic: 'AnyOf', serviceRoles: ['@svc-c'], edgeRouterRoles: ['@r4'] },
];

test('the index grants every identity and service exactly the routers routersForIdentity and routersCarryingService do', () => {
  const index = new RouterGrantIndex({ router: (id) => routers.find((row) => row.id === id), edgeRouterPolicies: erps, serviceEdgeRouterPolicies: serps });
  const identities = [
    { id: 'alice', roleAttributes: ['ops'] },
    { id: 'bob', roleAttributes: ['ops', 'dba'] },
    { id: 'carol', roleAttributes: [] },
    { id: 'r3', roleAttributes: [] },
    { id: 'r1', roleAttributes: ['ops'] },
  ];
  const ids = [...routers.map((row) => row.id), 'gone'];
  for (const identity of identities) {
    const expected = routersForIdentity(identity, { routers, policies: erps });
    const grant = index.identityRouters(identity);
    // Asked twice: the remembered answer is the same.
    for (let pass = 0; pass < 2; pass++) for (const id of ids) assert.equal(grant.has(id), expected.has(id), `${identity.id} may use ${id}`);
  }
  const services = [
    { id: 'svc-a', roleAttributes: ['web'] },
    { id: 'svc-b', roleAttributes: ['web', 'db'] },
    { id: 'svc-c', roleAttributes: [] },
  ];
  for (const service of services) {
    const expected = routersCarryingService(service, serps, routers);
    const grant = index.serviceRouters(service);
    for (let pass = 0; pass < 2; pass++) for (const id of ids) assert.equal(grant.has(id), expected.has(id), `${service.id} may use ${id}`);
  }
});

test("an identity's answers are keyed by its attributes too: the same id with other attributes is asked afresh", () => {
  const index = new RouterGrantIndex({ router: (id) => routers.find((row) => row.id === id), edgeRouterPolicies: erps, serviceEdgeRouterPolicies: serps });
  assert.equal(index.identityRouters({ id: 'bob', roleAttributes: ['ops', 'dba'] }).has('r2'), true);
  assert.equal(index.identityRouters({ id: 'bob', roleAttributes: ['ops'] }).has('r2'), false);
});
