// Bodies shaped to break whatever walks them (tags nested 20,000 objects deep, arrays as deep, an object of 100,000
// keys, an array of 200,000 items), sent to the leader and to each follower of a three-controller cluster on every
// kind of write route: each is refused at the edge with 400 INVALID_FIELD naming where the limit is passed, never a
// 500, never a 503. The cluster keeps its leader and term, and a write right after succeeds through every controller.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bodyShapeLimits } from '../server/web/body-shape-limits.ts';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { agent, threeControllerCluster, until } from './support/cluster-helpers.ts';
import type { ControllerFixture } from './support/controller-fixture.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-structure-pki-'));
let nodes: ControllerFixture[] = [];
const admin: Record<string, string> = {};
let user: Record<string, string>;
const ids: Record<string, string> = {};

interface Status {
  readonly term: number;
  readonly leader: string | null;
  readonly appliedIndex: number;
}
const statusOf = (node: ControllerFixture) => agent(node, 'status') as Promise<Status>;

before(async () => {
  nodes = await threeControllerCluster(pkiRoot);
  const leaderId = (await until('a leader every controller knows', async () => {
    const statuses = await Promise.all(nodes.map(statusOf));
    return statuses.every((status) => status.leader !== null && status.leader === statuses[0]!.leader) ? statuses[0] : undefined;
  })).leader;
  const leader = nodes.find((node) => node.id === leaderId)!;
  admin['zt-session'] = await leader.adminToken();
  const post = async (collection: string, body: unknown) => {
    const response = await leader.http.post(`${leader.managementApi}/${collection}`, { headers: admin, body });
    assert.equal(response.status, 201, response.text);
    return (ids[collection] = response.json.data.id as string);
  };
  const identity = await post('identities', { name: 'structure-user', isAdmin: false, roleAttributes: ['structure'] });
  await post('authenticators', { method: 'updb', identityId: identity, username: 'structure-user', password: 'structure-password' });
  await post('services', { name: 'structure-svc', encryptionRequired: true, roleAttributes: ['structure'] });
  await post('service-policies', { name: 'structure-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#structure'], serviceRoles: ['#structure'] });
  await post('edge-routers', { name: 'structure-router' });
  await post('auth-policies', authPolicyBody('structure-policy'));
  user = { 'zt-session': await leader.login('structure-user', 'structure-password') };
  for (const node of nodes) {
    await until(`${node.id} to have the entities and sessions`, async () => {
      const [asAdmin, asUser] = await Promise.all([
        node.http.get(`${node.managementApi}/auth-policies/${ids['auth-policies']}`, { headers: admin }),
        node.http.get(`${node.clientApi}/current-api-session`, { headers: user }),
      ]);
      return asAdmin.status === 200 && asUser.status === 200;
    });
  }
});
after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

const deepObject = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
// Keys of a few base-36 digits keep 100,000 of them under the 1 MiB body limit.
const wideObject = () => `{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;

interface Shape {
  readonly what: string;
  /** The body, around the hostile part, for a route whose structure-taking field is `field`. */
  readonly body: (field: string, rest: string) => string;
  readonly limit: RegExp;
  /** Where the cause says the limit is passed. */
  readonly at: (field: string) => RegExp;
}

const tooDeep = new RegExp(`deeper than ${bodyShapeLimits.maxDepth} levels`);
const tooWide = new RegExp(`more than ${bodyShapeLimits.maxMembers} keys and items`);

const shapes: Shape[] = [
  { what: 'tags nested 20,000 objects deep (the issue’s body)', body: (field, rest) => `{${rest}"${field}":${deepObject(20_000)}}`, limit: tooDeep, at: (field) => new RegExp(`^${field}\\.a\\.a\\.a`) },
  { what: 'arrays nested 20,000 deep', body: (field, rest) => `{${rest}"${field}":${deepArray(20_000)}}`, limit: tooDeep, at: (field) => new RegExp(`^${field}\\[0\\]\\[0\\]`) },
  { what: 'an object of 100,000 keys', body: (field, rest) => `{${rest}"${field}":${wideObject()}}`, limit: tooWide, at: (field) => new RegExp(`^${field}`) },
  { what: 'an array of 200,000 items', body: () => `[${Array.from({ length: 200_000 }, () => '0').join(',')}]`, limit: tooWide, at: () => /^(\(root\)|\[\d+\])$/ },
];

/** Write routes of both APIs with the member each lets a client fill with structure, and the rest of a valid body. */
const routes = (): Array<{ method: string; url: (node: ControllerFixture) => string; field: string; rest: string; headers: () => Record<string, string> }> => [
  { method: 'POST', url: (node) => `${node.managementApi}/identities`, field: 'tags', rest: '"name":"deep","isAdmin":false,', headers: () => admin },
  { method: 'PUT', url: (node) => `${node.managementApi}/identities/${ids.identities}`, field: 'appData', rest: '"name":"deep","isAdmin":false,', headers: () => admin },
  { method: 'PATCH', url: (node) => `${node.managementApi}/identities/${ids.identities}`, field: 'tags', rest: '', headers: () => admin },
  { method: 'POST', url: (node) => `${node.managementApi}/services`, field: 'tags', rest: '"name":"deep-svc","encryptionRequired":true,', headers: () => admin },
  { method: 'PATCH', url: (node) => `${node.managementApi}/service-policies/${ids['service-policies']}`, field: 'identityRoles', rest: '', headers: () => admin },
  { method: 'PUT', url: (node) => `${node.managementApi}/edge-routers/${ids['edge-routers']}`, field: 'appData', rest: '"name":"deep-router",', headers: () => admin },
  { method: 'POST', url: (node) => `${node.managementApi}/auth-policies`, field: 'primary', rest: '"name":"deep-policy",', headers: () => admin },
  { method: 'POST', url: (node) => `${node.managementApi}/authenticate?method=password`, field: 'envInfo', rest: '"username":"structure-user","password":"structure-password",', headers: () => ({}) },
  { method: 'POST', url: (node) => `${node.clientApi}/sessions`, field: 'tags', rest: `"serviceId":"${ids.services}",`, headers: () => user },
  { method: 'POST', url: (node) => `${node.clientApi}/enroll/ott?token=no-such-token`, field: 'clientCsr', rest: '', headers: () => ({}) },
];

test('deep and wide bodies are 400 INVALID_FIELD on the leader and the followers; the cluster keeps its leader and writes', async () => {
  const before = await Promise.all(nodes.map(statusOf));
  assert.ok(before.every((status) => status.leader === before[0]!.leader && status.term === before[0]!.term));

  for (const node of nodes) {
    const role = node.id === before[0]!.leader ? 'leader' : 'follower';
    for (const route of routes()) {
      for (const shape of shapes) {
        const body = shape.body(route.field, route.rest);
        assert.ok(Buffer.byteLength(body) < 1_048_576, 'under the body size limit: the structure is what is refused');
        const response = await node.http.request(route.method, route.url(node), { headers: { ...route.headers(), 'content-type': 'application/json' }, rawBody: body });
        const where = `${shape.what} → ${route.method} ${route.url(node)} on the ${role} ${node.id}`;
        assert.equal(response.status, 400, `${where}: ${response.text.slice(0, 300)}`);
        const error = response.json.error;
        assert.equal(error.code, 'INVALID_FIELD', where);
        assert.match(error.cause.reason, shape.limit, where);
        assert.match(error.cause.field, shape.at(route.field), where);
        assert.equal('value' in error.cause, false, `${where}: the value is not sent back`);
        assert.ok(response.text.length < 2000, `${where}: the answer stays small`);
      }
    }
  }

  const afterwards = await Promise.all(nodes.map(statusOf));
  assert.deepEqual(afterwards.map((status) => [status.leader, status.term]), before.map((status) => [status.leader, status.term]), 'the same leader, in the same term');
  for (const node of nodes) {
    assert.equal((await node.http.get(`${node.origin}/health-checks`)).status, 200, `${node.id} is healthy`);
    const written = await node.http.post(`${node.managementApi}/identities`, { headers: admin, body: { name: `after-${node.id}`, isAdmin: false, tags: { nested: { within: ['the', 'limits'] } } } });
    assert.equal(written.status, 201, `a write through ${node.id} right after: ${written.text}`);
  }
  for (const node of nodes) {
    await until(`${node.id} to read every write`, async () => {
      const listed = await node.http.get(`${node.managementApi}/identities?filter=${encodeURIComponent('name startswith "after-"')}`, { headers: admin });
      return listed.json?.meta?.pagination?.totalCount === nodes.length;
    });
  }
});
