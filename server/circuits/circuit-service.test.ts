// `circuit.create` on a real model store changed by raft commands: the policies' answers are kept between circuits
// (dial-grants.ts), and the very next circuit after a command that changes them is decided on the new rows.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { silentLogger } from '../../common/log/logger.ts';
import type { TerminatorRecord } from '../edge/terminator-directory.ts';
import { ServiceAccessService } from '../edge/service-access-service.ts';
import type { Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model/edge-router-policy-entities.ts';
import { openTestModel, type TestModel } from '../model/model-test-harness.ts';
import { linkGraph } from './circuit-paths.ts';
import type { EdgeRouter } from '../model/router-entities.ts';
import type { PostureCheck, Service, ServicePolicy } from '../model/service-entities.ts';
import { CircuitService, type CircuitAnswer } from './circuit-service.ts';
import { MaintainedLinkGraph } from './maintained-link-graph.ts';

const at = '2026-01-01T00:00:00.000Z';
const base = (id: string) => ({ id, createdAt: at, updatedAt: at, tags: {} });
const router = (id: string, roleAttributes: string[]): EdgeRouter => ({
  ...base(id), name: id, roleAttributes, isTunnelerEnabled: true, cost: 0, noTraversal: false, disabled: false, appData: {}, isVerified: true,
  fingerprint: (id === 'r1' ? '1' : '2').repeat(40), certPem: null, enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null,
});
const service = (id: string, roleAttributes: string[]): Service => ({ ...base(id), name: id, encryptionRequired: false, configs: [], roleAttributes, terminatorStrategy: 'smartrouting', maxIdleTimeMillis: 0 });
const dialPolicy = (id: string, identityRoles: string[], serviceRoles: string[], postureCheckRoles: string[] = []): ServicePolicy => ({
  ...base(id), name: id, type: 'Dial', semantic: 'AnyOf', identityRoles, serviceRoles, postureCheckRoles,
});
const erp = (id: string, identityRoles: string[], edgeRouterRoles: string[]): EdgeRouterPolicy => ({ ...base(id), name: id, semantic: 'AnyOf', identityRoles, edgeRouterRoles });
const serp = (id: string, serviceRoles: string[], edgeRouterRoles: string[]): ServiceEdgeRouterPolicy => ({ ...base(id), name: id, semantic: 'AnyOf', serviceRoles, edgeRouterRoles });
const identity = (id: string, roleAttributes: string[]): Identity => ({
  ...base(id), name: id, typeId: 'Default', isAdmin: false, isDefaultAdmin: false, authPolicyId: 'default', externalId: null, roleAttributes, disabledAt: null, disabledUntil: null,
});
const mfaCheck: PostureCheck = { ...base('mfa'), name: 'mfa', typeId: 'MFA', roleAttributes: ['mfa'], timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false, version: 1 };

const terminator: TerminatorRecord = { id: 't-web', serviceId: 'web', routerId: 'r2', binding: 'tunnel', address: 'tcp:127.0.0.1:1', identity: 'r2', cost: 0, precedence: 'default', createdAt: at, updatedAt: at, controllerId: 'c1' };
const links = [
  { routerId: 'r1', links: [{ id: 'l12', destRouterId: 'r2', latencyMs: 1 }] },
  { routerId: 'r2', links: [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }] },
];

/** A model where r1's own identity (attribute `clients`) and identity alice (`staff`) may dial `web`, hosted by r2. */
async function networkWithWeb(batches?: { readonly takes: (routerId: string) => boolean }): Promise<{ model: TestModel; circuits: CircuitService }> {
  const model = await openTestModel({ prefix: 'edgeward-circuit-service-' });
  await model.ok({ type: 'edgeRouter.create', router: router('r1', ['clients']) });
  await model.ok({ type: 'edgeRouter.create', router: router('r2', ['hosts']) });
  await model.ok({ type: 'identity.create', identity: identity('alice', ['staff']) });
  await model.ok({ type: 'service.create', service: service('web', ['web']) });
  await model.ok({ type: 'postureCheck.create', check: mfaCheck });
  await model.ok({ type: 'servicePolicy.create', policy: dialPolicy('clients-dial-web', ['#clients', '#staff'], ['#web']) });
  await model.ok({ type: 'edgeRouterPolicy.create', policy: erp('clients-use-r1', ['#clients', '#staff'], ['#clients']) });
  await model.ok({ type: 'serviceEdgeRouterPolicy.create', policy: serp('web-everywhere', ['#web'], ['#all']) });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const circuits = new CircuitService({
    controllerId: 'c1',
    store: model.store,
    access: new ServiceAccessService(model.store),
    presence: {
      terminatorsOf: async (serviceId) => [terminator].filter((held) => held.serviceId === serviceId),
      linkGraph: () => linkGraph(links, new Set(['r1', 'r2'])),
      ...(batches ? { takesRouteBatches: batches.takes } : {}),
    },
    signing: { certPem: 'unused by these tests', keyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string },
    clock: { now: () => Date.parse(at) },
    logger: silentLogger,
    ...(batches ? { endOfTurn: (run: () => void) => void setImmediate(run) } : {}),
  });
  // Edge clients' tokens are identity ids here; the identity's row is read at each dial, as the API session's is.
  circuits.setSessionDialer((token) => {
    const row = model.store.table<Identity>(tables.identities).get(token);
    return row ? { ok: true, identity: { id: row.id, roleAttributes: row.roleAttributes }, posture: { isMfaComplete: false }, sessionId: `session-${row.id}` } : { ok: false, message: 'no API session' };
  });
  return { model, circuits };
}

const routed = (answer: CircuitAnswer) => ('route' in answer ? answer.route !== undefined : false);
const refusal = (answer: CircuitAnswer) => ('refused' in answer ? answer.refused.code : 'routed');
const routerDial = (circuits: CircuitService) => circuits.create('r1', { service: 'web' });
const clientDial = (circuits: CircuitService, who = 'alice') => circuits.create('r1', { service: 'web', apiSession: who });

test('routes decided in one turn share one signature when every router of the path takes batches; a path through a router that does not gets routes signed alone', async () => {
  const signedRoutes = async (takes: (routerId: string) => boolean) => {
    const { model, circuits } = await networkWithWeb({ takes });
    const outcomes = await Promise.all([routerDial(circuits), clientDial(circuits), routerDial(circuits)]);
    await model.close();
    return outcomes.map(({ answer }) => ('route' in answer ? (answer.route as { signature: string; batch?: unknown }) : assert.fail(JSON.stringify(answer))));
  };
  const batched = await signedRoutes(() => true);
  assert.equal(new Set(batched.map((signed) => signed.signature)).size, 1, 'one signature');
  assert.ok(batched.every((signed) => Array.isArray(signed.batch) && signed.batch.length > 0), 'each with its path');
  for (const older of ['r1', 'r2']) {
    const alone = await signedRoutes((routerId) => routerId !== older);
    assert.equal(new Set(alone.map((signed) => signed.signature)).size, 3, `${older} did not say routeBatches: a signature each`);
    assert.ok(alone.every((signed) => signed.batch === undefined));
  }
});

test('circuits between changes are decided from indexes built once; a command on an unrelated table keeps them', async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await routerDial(circuits)).answer), true);
  assert.equal(routed((await clientDial(circuits)).answer), true);
  const builds = circuits.grants.builds;
  for (let i = 0; i < 5; i++) assert.equal(routed((await routerDial(circuits)).answer), true);
  await model.ok({ type: 'identity.create', identity: identity('bob', []) });
  assert.equal(routed((await clientDial(circuits)).answer), true);
  assert.equal(circuits.grants.builds, builds, 'no index was built again');
  await model.close();
});

test('a Dial policy removed: the very next circuit of that identity is refused', async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await routerDial(circuits)).answer), true);
  await model.ok({ type: 'servicePolicy.delete', id: 'clients-dial-web' });
  const outcome = await routerDial(circuits);
  assert.equal(refusal(outcome.answer), 'NO_DIAL_POLICY');
  // An edge client is told the hidden answer; the true cause is kept.
  const client = await clientDial(circuits);
  assert.equal(refusal(client.answer), 'SERVICE_NOT_FOUND');
  assert.equal(client.refusal?.code, 'NO_DIAL_POLICY');
  await model.close();
});

test("an identity's attribute removed: its very next circuit is refused; given back, the next is routed", async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await clientDial(circuits)).answer), true);
  await model.ok({ type: 'identity.update', id: 'alice', at, changes: { roleAttributes: ['visitors'] } });
  // Alice loses both the Dial policy and the edge router policy for r1: the router policy is checked first.
  assert.equal((await clientDial(circuits)).refusal?.code ?? refusal((await clientDial(circuits)).answer), 'NO_EDGE_ROUTER_POLICY');
  await model.ok({ type: 'identity.update', id: 'alice', at, changes: { roleAttributes: ['staff'] } });
  assert.equal(routed((await clientDial(circuits)).answer), true);
  await model.close();
});

test("a router's attribute changed: its own identity's very next circuit has no Dial policy (its system policy still lets it use itself)", async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await routerDial(circuits)).answer), true);
  const r1 = model.store.table<EdgeRouter>('edgeRouters').get('r1')!;
  await model.ok({ type: 'edgeRouter.update', id: 'r1', at, settings: { name: r1.name, roleAttributes: ['somewhere-else'], isTunnelerEnabled: true, cost: 0, noTraversal: false, disabled: false, appData: {}, tags: {} } });
  assert.equal(refusal((await routerDial(circuits)).answer), 'NO_DIAL_POLICY');
  await model.close();
});

test("a posture check added to the granting policy: the very next circuit is refused for failing it", async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await clientDial(circuits)).answer), true);
  const { id: _id, createdAt: _c, updatedAt: _u, ...policy } = dialPolicy('clients-dial-web', ['#clients', '#staff'], ['#web'], ['#mfa']);
  await model.ok({ type: 'servicePolicy.update', id: 'clients-dial-web', at, policy });
  const outcome = await clientDial(circuits);
  assert.equal(refusal(outcome.answer), 'INVALID_POSTURE');
  await model.close();
});

test('a posture check of the policy changed to another type: the very next circuit is decided on the new check', async () => {
  const { model, circuits } = await networkWithWeb();
  const { id: _id, createdAt: _c, updatedAt: _u, ...policy } = dialPolicy('clients-dial-web', ['#clients', '#staff'], ['#web'], ['#mfa']);
  await model.ok({ type: 'servicePolicy.update', id: 'clients-dial-web', at, policy });
  assert.equal(refusal((await clientDial(circuits)).answer), 'INVALID_POSTURE');
  // The check no longer carries the attribute the policy names: the policy requires nothing.
  const { id: _cid, createdAt: _cc, updatedAt: _cu, version: _v, ...check } = mfaCheck;
  await model.ok({ type: 'postureCheck.update', id: 'mfa', at, check: { ...check, roleAttributes: ['retired'] } });
  assert.equal(routed((await clientDial(circuits)).answer), true);
  await model.close();
});

test('the service deleted: the very next circuit finds no such service', async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await routerDial(circuits)).answer), true);
  await model.ok({ type: 'service.delete', id: 'web' });
  assert.equal(refusal((await routerDial(circuits)).answer), 'SERVICE_NOT_FOUND');
  await model.close();
});

test("the service's attribute changed: the very next circuit has no Dial policy for it", async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await routerDial(circuits)).answer), true);
  const { id: _id, createdAt: _c, updatedAt: _u, ...body } = service('web', ['intranet']);
  await model.ok({ type: 'service.update', id: 'web', at, service: body });
  assert.equal(refusal((await routerDial(circuits)).answer), 'NO_DIAL_POLICY');
  await model.close();
});

test('an edge router policy changed or removed: the very next circuit is refused; one added back lets it through', async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await clientDial(circuits)).answer), true);
  await model.ok({ type: 'edgeRouterPolicy.update', id: 'clients-use-r1', at, policy: { name: 'clients-use-r1', tags: {}, semantic: 'AnyOf', identityRoles: ['#clients'], edgeRouterRoles: ['#clients'] } });
  assert.equal(refusal((await clientDial(circuits)).answer), 'NO_EDGE_ROUTER_POLICY');
  // r1's own identity is still selected by the changed policy.
  assert.equal(routed((await routerDial(circuits)).answer), true);
  await model.ok({ type: 'edgeRouterPolicy.delete', id: 'clients-use-r1' });
  // r1 keeps its system policy (a tunneler-enabled router's own identity may use it).
  assert.equal(routed((await routerDial(circuits)).answer), true);
  assert.equal(refusal((await clientDial(circuits)).answer), 'NO_EDGE_ROUTER_POLICY');
  await model.ok({ type: 'edgeRouterPolicy.create', policy: erp('staff-use-all', ['#staff'], ['#all']) });
  assert.equal(routed((await clientDial(circuits)).answer), true);
  await model.close();
});

test('a service edge router policy removed: the very next circuit is refused', async () => {
  const { model, circuits } = await networkWithWeb();
  assert.equal(routed((await routerDial(circuits)).answer), true);
  await model.ok({ type: 'serviceEdgeRouterPolicy.delete', id: 'web-everywhere' });
  assert.equal(refusal((await routerDial(circuits)).answer), 'NO_SERVICE_EDGE_ROUTER_POLICY');
  await model.close();
});

test('a snapshot restored over the model: the very next circuit is decided on the restored rows', async () => {
  const { model, circuits } = await networkWithWeb();
  const before = model.store.exportRows();
  await model.ok({ type: 'servicePolicy.delete', id: 'clients-dial-web' });
  assert.equal(refusal((await routerDial(circuits)).answer), 'NO_DIAL_POLICY');
  await model.store.replaceAll(before, model.store.appliedIndex());
  assert.equal(routed((await routerDial(circuits)).answer), true);
  await model.close();
});

/** r1 reaches r3 directly (slow) or through r2 (fast), over a link graph kept as reports arrive, with its kept trees. */
async function networkWithMiddleRouter(): Promise<{ model: TestModel; circuits: CircuitService; graph: MaintainedLinkGraph }> {
  const model = await openTestModel({ prefix: 'edgeward-circuit-service-trees-' });
  await model.ok({ type: 'edgeRouter.create', router: router('r1', ['clients']) });
  await model.ok({ type: 'edgeRouter.create', router: router('r2', ['middle']) });
  await model.ok({ type: 'edgeRouter.create', router: { ...router('r3', ['hosts']), fingerprint: '3'.repeat(40) } });
  await model.ok({ type: 'service.create', service: service('web', ['web']) });
  await model.ok({ type: 'servicePolicy.create', policy: dialPolicy('clients-dial-web', ['#clients'], ['#web']) });
  await model.ok({ type: 'serviceEdgeRouterPolicy.create', policy: serp('web-everywhere', ['#web'], ['#all']) });
  const graph = new MaintainedLinkGraph();
  graph.setRouter('r1', [{ id: 'l12', destRouterId: 'r2', latencyMs: 1 }, { id: 'l13', destRouterId: 'r3', latencyMs: 50 }]);
  graph.setRouter('r2', [{ id: 'l12', destRouterId: 'r1', latencyMs: 1 }, { id: 'l23', destRouterId: 'r3', latencyMs: 1 }]);
  graph.setRouter('r3', [{ id: 'l13', destRouterId: 'r1', latencyMs: 50 }, { id: 'l23', destRouterId: 'r2', latencyMs: 1 }]);
  const onR3: TerminatorRecord = { ...terminator, id: 't-r3', routerId: 'r3', identity: 'r3' };
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const circuits = new CircuitService({
    controllerId: 'c1',
    store: model.store,
    access: new ServiceAccessService(model.store),
    presence: {
      terminatorsOf: async (serviceId) => [onR3].filter((held) => held.serviceId === serviceId),
      linkGraph: () => graph.graph,
      pathsFrom: (from, exclusion, excluded) => graph.pathsFrom(from, exclusion, excluded),
    },
    signing: { certPem: 'unused by these tests', keyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string },
    clock: { now: () => Date.parse(at) },
    logger: silentLogger,
  });
  return { model, circuits, graph };
}

const pathOf = async (circuits: CircuitService) => (await routerDial(circuits)).route?.routers;

test('a service edge router policy no longer granting the middle router: the very next circuit goes around it, though its path was kept', async () => {
  const { model, circuits, graph } = await networkWithMiddleRouter();
  assert.deepEqual(await pathOf(circuits), ['r1', 'r2', 'r3']);
  assert.deepEqual(await pathOf(circuits), ['r1', 'r2', 'r3']);
  assert.equal(graph.trees.searches, 1, 'the second circuit read the kept tree');
  await model.ok({ type: 'serviceEdgeRouterPolicy.update', id: 'web-everywhere', at, policy: { tags: {}, name: 'web-everywhere', semantic: 'AnyOf', serviceRoles: ['#web'], edgeRouterRoles: ['#clients', '#hosts'] } });
  assert.deepEqual(await pathOf(circuits), ['r1', 'r3']);
  await model.close();
});

test('a link of the kept path going down: the very next circuit takes the other link', async () => {
  const { model, circuits, graph } = await networkWithMiddleRouter();
  assert.deepEqual(await pathOf(circuits), ['r1', 'r2', 'r3']);
  graph.setRouter('r3', [{ id: 'l13', destRouterId: 'r1', latencyMs: 50 }]);
  assert.deepEqual(await pathOf(circuits), ['r1', 'r3']);
  await model.close();
});
