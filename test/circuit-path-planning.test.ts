// Path planning in a real controller process, asked over the router control channel (mutual TLS, enrolled
// certificates) by scripted routers: four routers, `plan-in` (tunneler, may Dial the service), `plan-mid`, `plan-host`
// (hosts the service) and `plan-liar`. The liar reports 0 ms links to the ingress and to the host that neither of them
// lists: the controller never plans over them, and the route it signs names the host's enrolled certificate for the
// ready. When both ends do list a link it is used, at the higher of the two ends' latencies.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { allowEveryRouter } from './support/circuit-routers.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { welcomedScriptedRouter, type EnrolledRouter, type ScriptedRouter } from './support/scripted-router.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
const open: ScriptedRouter[] = [];
const routers = {} as Record<'in' | 'mid' | 'host' | 'liar', { enrolled: EnrolledRouter; channel: ScriptedRouter }>;
let serviceId: string;

const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(mgmt(path), { headers: admin, body });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function router(name: string, body: Record<string, unknown>): Promise<{ enrolled: EnrolledRouter; channel: ScriptedRouter }> {
  const id = await post('/edge-routers', { name, ...body });
  const detail = await controller.http.get(mgmt(`/edge-routers/${id}`), { headers: admin });
  const welcomed = await welcomedScriptedRouter(controller, workbench, id, detail.json.data.enrollmentToken as string);
  open.push(welcomed.channel);
  return welcomed;
}

/** A request on a router's channel; its answer. Frames on one channel are handled in order, so it also waits for them. */
async function request(name: keyof typeof routers, body: Record<string, unknown>): Promise<any> {
  return routers[name].channel.request(body);
}

function links(name: keyof typeof routers, ...entries: Array<[linkId: string, to: keyof typeof routers, latencyMs: number]>): void {
  routers[name].channel.send({ type: 'router.links', links: entries.map(([id, to, latencyMs]) => ({ id, destRouterId: routers[to].enrolled.id, latencyMs })) });
}

/** The routers of the path the controller plans for plan-in now (after every router's last frame was handled). */
async function plannedPath(): Promise<{ routers: string[]; egressFingerprint?: string } | { refused: { code: string; message: string } }> {
  for (const name of Object.keys(routers) as Array<keyof typeof routers>) assert.equal((await request(name, { op: 'ping' })).ok, true);
  const answer = await request('in', { op: 'circuit.create', service: 'planned' });
  assert.equal(answer.ok, true, JSON.stringify(answer));
  if (answer.value.refused) return { refused: answer.value.refused };
  const route = JSON.parse(answer.value.route.text as string);
  const names = new Map(Object.entries(routers).map(([name, entry]) => [entry.enrolled.id, name]));
  return { routers: (route.routers as string[]).map((id) => names.get(id) ?? id), egressFingerprint: route.egressFingerprint };
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
  const hostConfig = await post('/configs', { name: 'planned-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: 18099 } });
  serviceId = await post('/services', { name: 'planned', encryptionRequired: true, roleAttributes: ['planned'], configs: [hostConfig] });
  await post('/service-policies', { name: 'planned-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: ['#planned'], postureCheckRoles: [] });
  await post('/service-policies', { name: 'planned-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: ['#planned'], postureCheckRoles: [] });
  await allowEveryRouter(post, 'planned');
  routers.in = await router('plan-in', { isTunnelerEnabled: true, roleAttributes: ['dialer'] });
  routers.mid = await router('plan-mid', {});
  routers.host = await router('plan-host', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  routers.liar = await router('plan-liar', {});
  routers.host.channel.send({ type: 'router.terminator.create', terminators: [{ serviceId, address: 'tcp:127.0.0.1:18099' }] });
});

after(async () => {
  for (const channel of open) channel.close();
  await controller?.dispose();
});

test('a link only one end reports is never planned over, however cheap; the route names the host\'s enrolled certificate', async () => {
  links('in', ['L-in-mid', 'mid', 20]);
  links('mid', ['L-in-mid', 'in', 20], ['L-mid-host', 'host', 20]);
  links('host', ['L-mid-host', 'mid', 20]);
  links('liar', ['L-liar-in', 'in', 0], ['L-liar-host', 'host', 0]);
  const planned = await plannedPath();
  assert.deepEqual(planned, {
    routers: ['in', 'mid', 'host'],
    egressFingerprint: new X509Certificate(routers.host.enrolled.certPem).fingerprint.replaceAll(':', '').toLowerCase(),
  });

  // Without the middle router's links only the liar's one-sided claims would join them: no path at all.
  links('mid');
  const refused = await plannedPath();
  assert.ok('refused' in refused, JSON.stringify(refused));
  assert.equal(refused.refused.code, 'NO_PATH');
});

test('a link both ends report is used, at the higher of the two ends\' latencies', async () => {
  links('mid', ['L-in-mid', 'in', 20], ['L-mid-host', 'host', 20]);
  // The ingress and the host do list the liar's links now, and measured them at 30 ms; the liar still says 0 ms.
  links('in', ['L-in-mid', 'mid', 20], ['L-liar-in', 'liar', 30]);
  links('host', ['L-mid-host', 'mid', 20], ['L-liar-host', 'liar', 30]);
  assert.deepEqual((await plannedPath() as { routers: string[] }).routers, ['in', 'mid', 'host'], '30 + 30 ms via the liar loses to 20 + 20 ms');
  links('in', ['L-in-mid', 'mid', 20], ['L-liar-in', 'liar', 5]);
  links('host', ['L-mid-host', 'mid', 20], ['L-liar-host', 'liar', 5]);
  assert.deepEqual((await plannedPath() as { routers: string[] }).routers, ['in', 'liar', 'host'], 'both ends vouch for 5 ms links: they win');
});
