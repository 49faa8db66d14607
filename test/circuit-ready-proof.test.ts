// The egress proves itself, across real processes: a controller, an ingress router run as an operator runs it
// (`./edgeward router enroll`, `./edgeward router run`, a proxy-mode tunnel listener, a link dialer), and two scripted
// routers with enrolled certificates: `mid`, which listens for links (mutual TLS, link.hello / link.welcome) and so
// gets a real link from the ingress, and `host`, which hosts the service. Both report a link between them, so the
// controller plans ingress → mid → host. `mid` turns bad: it keeps the setups and answers `c.ready` itself, first
// unsigned, then signed with its own enrolled key. The ingress refuses both: the client's connection is closed, none
// of its bytes reach `mid`, and the ingress logs `circuit ready refused` naming `mid`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { DataFrame, encodeFrame, FrameDecoder } from '../common/framing/frame-codec.ts';
import { ReadySigner } from '../router/circuits/ready-proof.ts';
import { circuitRouterYaml, enrollRouterProcess, hostedService, managementPoster, startWelcomedRouter } from './support/circuit-routers.ts';
import { until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import type { RouterRun } from './support/router-fixture.ts';
import { keyAndCsr, ScriptedRouter } from './support/scripted-router.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-ready-proof-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let workbench: OpensslWorkbench;
let ingress: RouterRun | undefined;
let ingressId: string;
let proxyPort: number;
const open: ScriptedRouter[] = [];

interface Scripted {
  readonly id: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly serverCertPem: string;
  readonly serverKeyPem: string;
  channel: ScriptedRouter;
}
let mid: Scripted;
let host: Scripted;

// mid's link listener: what it does with a setup, and what it has seen.
let answerSetup: (socket: TLSSocket, circuitId: string) => void = () => undefined;
let midLinkServer: TlsServer;
const midLinks: Array<{ linkId: string; socket: TLSSocket }> = [];
let dataFramesAtMid = 0;

const mgmt = (path: string) => `${controller.managementApi}${path}`;
const post = (path: string, body: Record<string, unknown>): Promise<string> => managementPoster(controller, admin)(path, body);

/** Creates and enrolls a router (`/enroll/erott`), keeping both keys, and connects its control channel. */
async function scriptedRouter(name: string, body: Record<string, unknown>, hello: Record<string, unknown> = {}): Promise<Scripted> {
  const id = await post('/edge-routers', { name, ...body });
  const detail = await controller.http.get(mgmt(`/edge-routers/${id}`), { headers: admin });
  const client = await keyAndCsr(workbench, 'router-client');
  const server = await keyAndCsr(workbench, 'router-server', 'DNS:localhost,IP:127.0.0.1');
  const enrolled = await controller.http.post(`${controller.clientApi}/enroll/erott`, { body: { token: detail.json.data.enrollmentToken, certCsr: client.csrPem, serverCertCsr: server.csrPem } });
  assert.equal(enrolled.status, 200, enrolled.text);
  const { cert, serverCert } = enrolled.json.data;
  const channel = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, { certPem: cert, keyPem: client.keyPem });
  open.push(channel);
  channel.hello(id, hello);
  await channel.next('ctrl.welcome');
  return { id, certPem: cert, keyPem: client.keyPem, serverCertPem: serverCert, serverKeyPem: server.keyPem, channel };
}

/** A client of the ingress's proxy port: what it received, and whether the connection was closed within 10 s. */
function dialThroughIngress(payload: string): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port: proxyPort });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received: Buffer.concat(chunks).toString(), closed: false });
    }, 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received: Buffer.concat(chunks).toString(), closed: true });
    });
    socket.on('connect', () => socket.write(payload));
  });
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
  const servicePort = await freePort();
  const serviceId = await hostedService(post, 'proof', 'proved', servicePort);

  // mid: a link listener the ingress will dial (its server certificate is the one it enrolled).
  const midLinkPort = await freePort();
  const listener = { binding: 'transport', advertise: `tls:127.0.0.1:${midLinkPort}`, groups: ['default'] };
  mid = await scriptedRouter('proof-mid', {}, { linkListeners: [listener] });
  midLinkServer = createTlsServer({ cert: mid.serverCertPem, key: mid.serverKeyPem, ca: controller.caPem, requestCert: true, rejectUnauthorized: true }, (socket) => {
    socket.on('error', () => undefined);
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame instanceof DataFrame) {
          dataFramesAtMid++;
          continue;
        }
        const value = frame as { type?: string; linkId?: string; circuitId?: string; sentAt?: number };
        if (value.type === 'link.hello') {
          midLinks.push({ linkId: value.linkId!, socket });
          socket.write(encodeFrame({ type: 'link.welcome', routerId: mid.id }));
        } else if (value.type === 'hb') socket.write(encodeFrame({ type: 'hbAck', sentAt: value.sentAt }));
        else if (value.type === 'c.setup') answerSetup(socket, value.circuitId!);
      }
    });
  });
  await new Promise<void>((resolve) => midLinkServer.listen(midLinkPort, '127.0.0.1', () => resolve()));

  host = await scriptedRouter('proof-host-router', { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  host.channel.send({ type: 'router.terminator.create', terminators: [{ serviceId, address: `tcp:127.0.0.1:${servicePort}` }] });
  mid.channel.send({ type: 'router.links', links: [{ id: 'L-mid-host', destRouterId: host.id, latencyMs: 1 }] });
  host.channel.send({ type: 'router.links', links: [{ id: 'L-mid-host', destRouterId: mid.id, latencyMs: 1 }] });

  // The ingress, a real process: a proxy port for the service, and a link dialer.
  proxyPort = await freePort();
  const yaml = circuitRouterYaml({
    ctrlAddress: controller.ctrlAddress,
    edgePort: await freePort(),
    tunnel: `{mode: proxy, services: ["proved:${proxyPort}"]}`,
    tail: `link:
  dialers:
    - binding: transport
      split: false
      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}
`,
  });
  const enrolled = await enrollRouterProcess(controller, admin, join(root, 'ingress'), yaml, 'proof-ingress', { isTunnelerEnabled: true, roleAttributes: ['dialer'] });
  ingressId = enrolled.id;
  ingress = await startWelcomedRouter(enrolled.config, 'the ingress welcomed');

  // The ingress dials mid; mid reports that link too, so both ends vouch for it.
  const linked = await until('the ingress linked to mid', () => midLinks[0], 20_000);
  mid.channel.send({
    type: 'router.links',
    links: [
      { id: 'L-mid-host', destRouterId: host.id, latencyMs: 1 },
      { id: linked.linkId, destRouterId: ingressId, latencyMs: 1 },
    ],
  });
});

after(async () => {
  await ingress?.stop();
  for (const channel of open) channel.close();
  for (const { socket } of midLinks) socket.destroy();
  midLinkServer?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

const refusals = () => ingress!.lines.filter((line) => line.msg === 'circuit ready refused');

test('a c.ready the middle router makes up, unsigned or signed with its own key, fails the setup at the ingress', async () => {
  const midSigner = new ReadySigner(mid.keyPem, mid.certPem);
  const forgeries: Array<{ make: (circuitId: string) => Record<string, unknown>; reason: RegExp }> = [
    { make: (circuitId) => ({ type: 'c.ready', circuitId }), reason: new RegExp(`the ready is not signed \\(router ${host.id} must sign it\\)`) },
    { make: (circuitId) => ({ type: 'c.ready', circuitId, proof: midSigner.sign(circuitId, 'a'.repeat(64), undefined) }), reason: new RegExp(`the ready signer is not router ${host.id}`) },
  ];
  for (const forgery of forgeries) {
    answerSetup = (socket, circuitId) => socket.write(encodeFrame(forgery.make(circuitId)));
    const before = refusals().length;
    // Until the ingress has heard of the path (both ends' link reports), a connection is refused with NO_PATH.
    const outcome = await until('a setup answered by mid', async () => {
      const result = await dialThroughIngress('secret for the host');
      return refusals().length > before ? result : undefined;
    }, 30_000);
    assert.deepEqual(outcome, { received: '', closed: true }, 'the client was closed with nothing');
    const line = refusals()[before]!;
    assert.match(String(line.reason), forgery.reason);
    assert.equal(line.from, mid.id);
  }
  assert.equal(dataFramesAtMid, 0, 'none of the clients\' bytes reached mid');
  assert.equal(ingress!.lines.filter((line) => line.msg === 'circuit created').length, 0);
});
