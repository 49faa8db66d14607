// The names a router's server certificate may carry, at `/enroll/erott` of a real controller whose certificate names
// ctrl.edgeward.test, *.api.edgeward.test and 192.0.2.10: a controller's names, wildcards and addresses no host is
// reached at are refused with COULD_NOT_PROCESS_CSR naming the name, and nothing is signed; no two routers hold one
// name (loopback names excepted), even when both enroll at once; a re-enrolled router's names are free again; and the
// certificates name the router by its SPIFFE id. A peer controller's certificate names: controller-routers-cluster.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { keyAndCsr } from './support/scripted-router.ts';

let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;

before(async () => {
  controller = await ControllerFixture.create({
    id: 'ctrl-names',
    certificateNames: { dnsNames: ['localhost', 'ctrl.edgeward.test', '*.api.edgeward.test'], ipAddresses: ['127.0.0.1', '192.0.2.10'] },
  });
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
});
after(async () => {
  await controller?.dispose();
});

async function createRouter(name: string): Promise<{ id: string; token: string }> {
  const created = await controller.http.post(`${controller.managementApi}/edge-routers`, { headers: admin, body: { name } });
  assert.equal(created.status, 201, created.text);
  return { id: created.json.data.id, token: (await detail(created.json.data.id)).enrollmentToken };
}

async function detail(id: string): Promise<any> {
  const response = await controller.http.get(`${controller.managementApi}/edge-routers/${id}`, { headers: admin });
  assert.equal(response.status, 200, response.text);
  return response.json.data;
}

async function erott(token: string, sans: string) {
  const [client, server] = await Promise.all([keyAndCsr(workbench, 'router-client'), keyAndCsr(workbench, 'router-server', sans)]);
  return controller.http.post(`${controller.clientApi}/enroll/erott`, { body: { token, certCsr: client.csrPem, serverCertCsr: server.csrPem } });
}

function assertRefused(response: { status: number; json: any; text: string }, name: string, reason: RegExp): void {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.json.error.code, 'COULD_NOT_PROCESS_CSR');
  assert.equal(response.json.error.cause.field, 'serverCertCsr');
  assert.equal(response.json.error.cause.value, name);
  assert.match(response.json.error.cause.reason, reason);
  assert.equal('data' in response.json, false, 'no certificate');
}

test("a router may not obtain a controller's names, a wildcard or an address no host is reached at; nothing is signed", async () => {
  const router = await createRouter('names-router');
  const refusals: Array<[string, string, RegExp]> = [
    ['DNS:edge.example.test,DNS:ctrl.edgeward.test', 'ctrl.edgeward.test', /belongs to a controller \(on a controller certificate\)/],
    ['DNS:CTRL.EdgeWard.test', 'ctrl.edgeward.test', /belongs to a controller/],
    ['DNS:eu.api.edgeward.test', 'eu.api.edgeward.test', /belongs to a controller \(under the controller certificate name \*\.api\.edgeward\.test\)/],
    ['IP:192.0.2.10', '192.0.2.10', /belongs to a controller \(on a controller certificate\)/],
    ['DNS:*.routers.example.test', '*.routers.example.test', /is a wildcard/],
    ['IP:0.0.0.0', '0.0.0.0', /no router is reached at it/],
  ];
  for (const [sans, name, reason] of refusals) assertRefused(await erott(router.token, sans), name, reason);
  const open = await detail(router.id);
  assert.equal(open.isVerified, false, 'refused attempts leave the enrollment open');
  assert.equal(open.enrollmentToken, router.token);

  const granted = await erott(router.token, 'DNS:edge.example.test,DNS:localhost,IP:127.0.0.1,IP:203.0.113.9');
  assert.equal(granted.status, 200, granted.text);
  const server = new X509Certificate(granted.json.data.serverCert);
  const client = new X509Certificate(granted.json.data.cert);
  const spiffeId = `URI:spiffe://edgeward.test/router/${router.id}`;
  assert.equal(server.subjectAltName, `DNS:edge.example.test, DNS:localhost, IP Address:127.0.0.1, IP Address:203.0.113.9, ${spiffeId}`);
  assert.equal(client.subjectAltName, spiffeId, 'the client certificate carries the router SPIFFE id only');
  assert.equal((await detail(router.id)).isVerified, true);
});

test("no two routers hold one name, even enrolling at once; loopback names are shared; a re-enrolled router's names are free again", async () => {
  const a = await createRouter('names-a');
  const b = await createRouter('names-b');
  const taken = /is already on another edge router's server certificate/;
  assert.equal((await erott(a.token, 'DNS:shared.example.test,IP:203.0.113.20,DNS:localhost,IP:127.0.0.1')).status, 200);
  assertRefused(await erott(b.token, 'DNS:b.example.test,DNS:Shared.Example.test'), 'shared.example.test', taken);
  assertRefused(await erott(b.token, 'IP:::ffff:203.0.113.20'), '203.0.113.20', taken);
  const loopback = await erott(b.token, 'DNS:b.example.test,DNS:localhost,IP:127.0.0.1');
  assert.equal(loopback.status, 200, loopback.text);

  // Two routers asking for one name at the same moment: one gets it, the other is refused, through the log's order.
  const [c, d] = await Promise.all([createRouter('names-c'), createRouter('names-d')]);
  const race = await Promise.all([erott(c.token, 'DNS:contested.example.test'), erott(d.token, 'DNS:contested.example.test')]);
  assert.deepEqual(race.map((response) => response.status).sort(), [200, 400], race.map((response) => response.text).join('\n'));
  assertRefused(race.find((response) => response.status === 400)!, 'contested.example.test', taken);

  const reEnrolled = await controller.http.post(`${controller.managementApi}/edge-routers/${a.id}/re-enroll`, { headers: admin });
  assert.equal(reEnrolled.status, 200, reEnrolled.text);
  const e = await createRouter('names-e');
  const freed = await erott(e.token, 'DNS:shared.example.test,IP:203.0.113.20');
  assert.equal(freed.status, 200, freed.text);
  assertRefused(await erott((await detail(a.id)).enrollmentToken, 'DNS:shared.example.test'), 'shared.example.test', taken);
});
