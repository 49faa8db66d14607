// Routes signed in batches, in a real controller process asked over the router control channel (mutual TLS,
// enrolled certificates) by scripted routers. The controller signs the routes it decides in one turn with one
// signature over their hash tree's root when every router of each path said `routeBatches` in its hello; a route
// through a router that did not (an older router, which checks the signature over the route's own text) is signed
// alone, as before. Each route is checked here as the routers check it (RouteVerifier, with the routers' CA).
import assert from 'node:assert/strict';
import { verify, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RouteVerifier, type SignedRoute } from '../common/circuits/circuit-route.ts';
import { encodeFrame } from '../common/framing/frame-codec.ts';
import { allowEveryRouter } from './support/circuit-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { enrollRouter, ScriptedRouter, type EnrolledRouter } from './support/scripted-router.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
const open: ScriptedRouter[] = [];
const routers = {} as Record<'in' | 'oldIn' | 'host' | 'oldHost', { enrolled: EnrolledRouter; channel: ScriptedRouter }>;

const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(mgmt(path), { headers: admin, body });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

/** A router enrolled and welcomed; `batches`: its hello says routeBatches, as edgeward routers' now do. */
async function router(name: string, body: Record<string, unknown>, batches: boolean) {
  const id = await post('/edge-routers', { name, ...body });
  const detail = await controller.http.get(mgmt(`/edge-routers/${id}`), { headers: admin });
  const enrolled = await enrollRouter(controller, workbench, id, detail.json.data.enrollmentToken as string);
  const channel = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, enrolled);
  channel.hello(id, batches ? { routeBatches: true } : {});
  await channel.next('ctrl.welcome');
  open.push(channel);
  return { enrolled, channel };
}

let rid = 5000;
/** `count` circuit.create requests for `service` written at once (one read at the controller); their signed routes. */
async function routesAtOnce(from: keyof typeof routers, service: string, count: number): Promise<SignedRoute[]> {
  const { channel } = routers[from];
  for (const name of Object.keys(routers) as Array<keyof typeof routers>) assert.equal((await routers[name].channel.request({ op: 'ping' })).ok, true);
  const rids = Array.from({ length: count }, () => ++rid);
  channel.socket.write(Buffer.concat(rids.map((id) => encodeFrame({ type: 'req', rid: id, body: { op: 'circuit.create', service } }))));
  const answers = new Map<number, any>();
  while (answers.size < count) {
    const answer = await channel.next('res');
    answers.set(answer.rid as number, answer);
  }
  return rids.map((id) => {
    const answer = answers.get(id);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.ok(answer.value.route, JSON.stringify(answer.value));
    return answer.value.route as SignedRoute;
  });
}

/** What a router of the path concludes of the route (the hosting router's own CA bundle). */
function checkedByRouter(signed: SignedRoute): { routers: string[] } {
  const verdict = new RouteVerifier(routers.host.enrolled.ca).verify(signed, Date.now());
  assert.ok(verdict.ok, !verdict.ok ? verdict.reason : '');
  return { routers: [...verdict.route.routers] };
}

/** The check a router older than batches makes: the signature over the route's text. */
function plainSignatureHolds(signed: SignedRoute): boolean {
  const signer = new X509Certificate(signed.signer);
  return verify('sha256', Buffer.from(signed.text), signer.publicKey, Buffer.from(signed.signature, 'base64'));
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
  const hostConfig = await post('/configs', { name: 'batches-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: 18098 } });
  const batched = await post('/services', { name: 'batched', encryptionRequired: false, roleAttributes: ['batched'], configs: [hostConfig] });
  const plain = await post('/services', { name: 'plain', encryptionRequired: false, roleAttributes: ['plain'], configs: [hostConfig] });
  await post('/service-policies', { name: 'batches-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#batched', '#plain'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'batches-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#batched', '#plain'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'batches');
  routers.in = await router('batch-in', { isTunnelerEnabled: true, roleAttributes: ['dialer'] }, true);
  routers.oldIn = await router('batch-old-in', { isTunnelerEnabled: true, roleAttributes: ['dialer'] }, false);
  routers.host = await router('batch-host', { isTunnelerEnabled: true, roleAttributes: ['hosting'] }, true);
  routers.oldHost = await router('batch-old-host', { isTunnelerEnabled: true, roleAttributes: ['hosting'] }, false);
  routers.host.channel.send({ type: 'router.terminator.create', terminators: [{ serviceId: batched, address: 'tcp:127.0.0.1:18098' }] });
  routers.oldHost.channel.send({ type: 'router.terminator.create', terminators: [{ serviceId: plain, address: 'tcp:127.0.0.1:18098' }] });
  const link = (to: keyof typeof routers, id: string) => ({ id, destRouterId: routers[to].enrolled.id, latencyMs: 5 });
  routers.in.channel.send({ type: 'router.links', links: [link('host', 'L-in-host'), link('oldHost', 'L-in-old')] });
  routers.oldIn.channel.send({ type: 'router.links', links: [link('host', 'L-oldin-host')] });
  routers.host.channel.send({ type: 'router.links', links: [link('in', 'L-in-host'), link('oldIn', 'L-oldin-host')] });
  routers.oldHost.channel.send({ type: 'router.links', links: [link('in', 'L-in-old')] });
});

after(async () => {
  for (const channel of open) channel.close();
  await controller?.dispose();
});

test('routes of one turn between routers that take batches share one signature; each verifies as the routers check it, by its own path', async () => {
  const signed = await routesAtOnce('in', 'batched', 6);
  assert.deepEqual(new Set(signed.map((route) => checkedByRouter(route).routers.join('>'))), new Set([`${routers.in.enrolled.id}>${routers.host.enrolled.id}`]));
  assert.ok(new Set(signed.map((route) => route.signature)).size < signed.length, 'fewer signatures than routes');
  assert.ok(signed.every((route) => Array.isArray(route.batch) && route.batch.length > 0), 'each route carries its path');
  assert.ok(signed.every((route) => !plainSignatureHolds(route)), 'not a signature over the text: why older routers are never sent one');
});

test('a path through a router that did not say routeBatches (an older host, or an older ingress) gets routes signed alone, which it verifies as before', async () => {
  for (const [from, service] of [['in', 'plain'], ['oldIn', 'batched']] as const) {
    const signed = await routesAtOnce(from, service, 4);
    assert.equal(new Set(signed.map((route) => route.signature)).size, 4, `${from} → ${service}: a signature each`);
    for (const route of signed) {
      assert.equal(route.batch, undefined);
      assert.ok(plainSignatureHolds(route), 'the signature over the text, as an older router checks it');
      checkedByRouter(route);
    }
  }
});
