// A route is used once, across real processes: a controller, a hosting router run as an operator runs it
// (`./edgeward router enroll`, `./edgeward router run`, a host-mode tunnel listener and a link listener), and a
// scripted router that may Dial the service: it holds an enrolled certificate, speaks the control channel, and dials a
// real link (mutual TLS, link.hello) to the hosting router. It gets a genuine signed route from the controller and sets
// the circuit up: the hosting router dials the service once and answers with a `c.ready` signed by the certificate it
// enrolled with (the one the route names). Sent again over the same link, the same setup is refused and nothing more
// is dialed: a router that once carried a route cannot open another connection to the service with it. A route signed
// with the certificate of a controller of the network that is not a member of the cluster (a removed one), or by one
// controller in another's name, is refused there too, while the same route signed by the member it names is taken.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { trustDomainsOfBundle } from '../common/certificates/presented-certificate.ts';
import { routeDigest, RouteSigner, type CircuitRoute, type SignedRoute } from '../common/circuits/circuit-route.ts';
import { controllerPaths, issueControllerCertificate } from '../common/pki/pki-directory.ts';
import { linkTestClient, type LinkTestClient } from '../router/links/link-test-support.ts';
import { readReadyProof, ReadyVerifier } from '../router/circuits/ready-proof.ts';
import { until } from './support/cluster-helpers.ts';
import { hostAndDialer, routeFor } from './support/circuit-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { startEchoServer, type EchoServer } from './support/echo-server.ts';
import type { RouterRun } from './support/router-fixture.ts';
import type { EnrolledRouter, ScriptedRouter } from './support/scripted-router.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-route-replay-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let hostId: string;
let host: RouterRun | undefined;
let hostLinkPort: number;
let attacker: { enrolled: EnrolledRouter; channel: ScriptedRouter };
let link: LinkTestClient | undefined;
let linkId: string;
let service: EchoServer | undefined;
const serviceSockets: Socket[] = [];
let request: (body: Record<string, unknown>) => Promise<any>;

/** The next frame of `type` for `circuitId` the hosting router sent over the link, within 10 s. */
async function linkFrame(type: string, circuitId: string, after: number): Promise<Record<string, unknown>> {
  return until(`${type} for ${circuitId}`, async () => {
    const found = link!.frames.slice(after).find((frame) => (frame as { type?: string; circuitId?: string }).type === type && (frame as { circuitId?: string }).circuitId === circuitId);
    return found as Record<string, unknown> | undefined;
  }, 10_000);
}

function linkOrFail(): LinkTestClient {
  return link ?? assert.fail('no link to the hosting router');
}

/** A genuine route for the scripted router over its link, once the hosting router has reported the link too. */
async function genuineRoute(): Promise<SignedRoute> {
  return routeFor<SignedRoute>(request, 'replayable');
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  service = await startEchoServer((socket) => serviceSockets.push(socket));
  // The hosting router, a real process; the scripted router may Dial the service.
  const hosting = await hostAndDialer(controller, admin, join(root, 'host'), { prefix: 'replay', service: 'replayable', servicePort: service.port });
  ({ hostId, host, hostLinkPort, request } = hosting);
  attacker = hosting.dialer;

  // A real link from the scripted router to the hosting router's link listener (its hello names it; its enrolled
  // client certificate proves it), reported by both ends.
  linkId = `replay-link-${Date.now()}`;
  link = await until('a welcomed link', async () => {
    const { certPem, keyPem, serverCertPem } = attacker.enrolled;
    const candidate = await linkTestClient(hostLinkPort, { certPem, keyPem, serverCertPem, serverKeyPem: keyPem, caPem: controller.caPem });
    candidate.send({ type: 'link.hello', routerId: attacker.enrolled.id, linkId, connType: 'single' });
    const outcome = await until('link.welcome or a refusal', async () => (candidate.frames.some((frame) => (frame as { type?: string }).type === 'link.welcome') ? 'welcomed' : candidate.closedAt !== undefined ? 'refused' : undefined), 5_000);
    if (outcome === 'welcomed') return candidate;
    candidate.destroy();
    return undefined;
  }, 20_000);
  attacker.channel.send({ type: 'router.links', links: [{ id: linkId, destRouterId: hostId, latencyMs: 1 }] });

});

after(async () => {
  link?.destroy();
  attacker?.channel.close();
  await host?.stop();
  for (const socket of serviceSockets) socket.destroy();
  await service?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('the same signed setup sent twice over a real link: the hosting router dials once, signs its ready, and refuses the replay', async () => {
  const link = linkOrFail();
  const signed = await genuineRoute();
  const route = JSON.parse(signed.text);
  assert.deepEqual(route.routers, [attacker.enrolled.id, hostId]);
  assert.deepEqual(route.links, [linkId]);

  // First use: set up, dialed once, a ready signed by the hosting router's enrolled certificate.
  let mark = link.frames.length;
  link.send({ type: 'c.setup', circuitId: route.circuitId, route: signed, hop: 1 });
  const ready = await linkFrame('c.ready', route.circuitId, mark);
  await until('the service dialed', async () => (serviceSockets.length === 1 ? true : undefined), 5_000);
  const verifier = new ReadyVerifier(controller.caPem, trustDomainsOfBundle(controller.caPem));
  const expected = { circuitId: route.circuitId, routeDigest: routeDigest(signed), received: undefined, egressRouterId: hostId, egressFingerprint: route.egressFingerprint };
  assert.equal(verifier.problem(readReadyProof(ready.proof), expected, Date.now()), undefined, 'the ready is the hosting router\'s');
  assert.match(String(verifier.problem(readReadyProof(ready.proof), { ...expected, circuitId: 'another-circuit-id' }, Date.now())), /does not verify/);
  link.send({ type: 'c.close', circuitId: route.circuitId, graceful: false, reason: 'done' });
  await until('the service connection closed', async () => (serviceSockets[0]!.destroyed ? true : undefined), 5_000);

  // The replay: the same setup, over the same link, well within the route's five minutes.
  mark = link.frames.length;
  link.send({ type: 'c.setup', circuitId: route.circuitId, route: signed, hop: 1 });
  const fail = await linkFrame('c.fail', route.circuitId, mark);
  assert.equal(fail.reason, 'the route was used before: a route sets up one circuit once');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(serviceSockets.length, 1, 'the replay dialed nothing');
  assert.ok(!link.frames.slice(mark).some((frame) => (frame as { type?: string }).type === 'c.ready'), 'no ready for the replay');
  const refused = await host!.waitForLog((line) => line.msg === 'circuit setup refused' && line.circuitId === route.circuitId, 5_000, 'the refusal logged');
  assert.equal(refused.from, attacker.enrolled.id);
});

test('a route signed by a controller of the network that is not a cluster member, or in another controller\'s name, is refused by the real router', async () => {
  const genuine = JSON.parse((await genuineRoute()).text) as CircuitRoute;
  const pkiDir = join(controller.root, 'pki');
  const gone = await issueControllerCertificate(pkiDir, { id: 'ctrl-gone', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const goneSigner = new RouteSigner(readFileSync(gone.paths.key, 'utf8'), readFileSync(gone.paths.chain, 'utf8'));
  const member = controllerPaths(pkiDir, controller.id);
  const memberSigner = new RouteSigner(readFileSync(member.key, 'utf8'), readFileSync(member.chain, 'utf8'));
  const fresh = (overrides: Partial<CircuitRoute>): CircuitRoute => ({ ...genuine, circuitId: `forged-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`, issuedAt: Date.now(), ...overrides });
  const answerTo = async (signed: SignedRoute): Promise<Record<string, unknown>> => {
    const circuitId = (JSON.parse(signed.text) as CircuitRoute).circuitId;
    const mark = link!.frames.length;
    link!.send({ type: 'c.setup', circuitId, route: signed, hop: 1 });
    return until(`an answer for ${circuitId}`, () => link!.frames.slice(mark).find((frame) => (frame as { circuitId?: string }).circuitId === circuitId) as Record<string, unknown> | undefined, 10_000);
  };
  const dialedBefore = serviceSockets.length;

  const removed = await answerTo(goneSigner.sign(fresh({ controllerId: 'ctrl-gone' })));
  assert.deepEqual([removed.type, removed.reason], ['c.fail', 'controller ctrl-gone is not a member of the cluster now']);
  const impersonating = await answerTo(goneSigner.sign(fresh({})));
  assert.deepEqual([impersonating.type, impersonating.reason], ['c.fail', `the route names controller ${controller.id} but was signed by controller ctrl-gone`]);
  assert.equal(serviceSockets.length, dialedBefore, 'nothing dialed for either');

  // The same route signed by the member it names is taken: the refusals were the signer's, nothing else.
  const taken = fresh({});
  const ready = await answerTo(memberSigner.sign(taken));
  assert.equal(ready.type, 'c.ready');
  await until('the service dialed', async () => (serviceSockets.length === dialedBefore + 1 ? true : undefined), 5_000);
  link!.send({ type: 'c.close', circuitId: taken.circuitId, graceful: false, reason: 'done' });
});
