// Edge router policies are model state like every entity: written through one controller of a three-controller
// cluster, they are served by every member (each from its own store), with an entity change event carrying the raft
// index of the command; a write through another member reaches the others the same way.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-erp-cluster-'));
let nodes: ControllerFixture[] = [];
before(async () => {
  nodes = await threeControllerCluster(join(root, 'pki'));
});
after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(root, { recursive: true, force: true });
});

const events = (node: ControllerFixture) =>
  existsSync(node.eventsFile) ? readFileSync(node.eventsFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>) : [];

test('an edge router policy written on one member is served, with its entity change event, by every member', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  const admin = { 'zt-session': await first.adminToken() };
  const created = await first.http.post(`${first.managementApi}/edge-router-policies`, { headers: admin, body: { name: 'replicated-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;

  for (const node of nodes) {
    const headers = { 'zt-session': await node.adminToken() };
    const detail = await until(`the policy on ${node.id}`, async () => {
      const response = await node.http.get(`${node.managementApi}/edge-router-policies/${id}`, { headers });
      return response.status === 200 ? response.json.data : undefined;
    }, 20_000);
    assert.deepEqual([detail.name, detail.identityRoles, detail.edgeRouterRoles], ['replicated-erp', ['#all'], ['#all']]);
  }
  // The leader writes the entity change event (propagateAlways is off in the fixtures' config), with the command's raft index.
  const event = await until('the entity change event', () => nodes.flatMap(events).find((entry) => entry.namespace === 'entityChange' && entry.entityType === 'edgeRouterPolicies' && entry.finalState?.id === id), 20_000);
  assert.equal(event.eventType, 'created');
  assert.ok(Number.isInteger(event.raftIndex) && event.raftIndex > 0);
  assert.equal(event.metadata.command, 'edgeRouterPolicy.create');

  // A write through another member (forwarded to the leader when it is a follower) shows on the second member too.
  const viaThird = await third.http.post(`${third.managementApi}/service-edge-router-policies`, { headers: { 'zt-session': await third.adminToken() }, body: { name: 'replicated-serp', semantic: 'AllOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] } });
  assert.equal(viaThird.status, 201, viaThird.text);
  const secondHeaders = { 'zt-session': await second.adminToken() };
  await until('the service edge router policy on the second member', async () => {
    const response = await second.http.get(`${second.managementApi}/service-edge-router-policies/${viaThird.json.data.id}`, { headers: secondHeaders });
    return response.status === 200;
  }, 20_000);
});
