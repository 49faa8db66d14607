// Receivers enforce flow control, across real processes: a controller, a hosting router run as an operator runs it
// (`./edgeward router enroll`, `./edgeward router run`, a host-mode tunnel listener and a link listener) in front of a
// service that never reads, and a scripted router (enrolled, on the control channel, may Dial the service) with a real
// link to the hosting router. The scripted router gets a genuine signed route, sets the circuit up and then sends as
// fast as the link takes it, ignoring every acknowledgement. The hosting router closes that circuit with the
// overrun reason, logs it with the circuit's id, and never holds more than its 4 MiB window for it (its
// `circuit.buffered_bytes` gauge, read from the controller's /metrics throughout); its link stays up.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import type { SignedRoute } from '../common/circuits/circuit-route.ts';
import { defaultWindowBytes, windowOverrunReason, windowSlackBytes } from '../router/circuits/circuit-end.ts';
import { FramedSocket } from '../router/links/framed-socket.ts';
import { rawLinkPeer, type RawLinkPeer } from '../router/links/raw-link-peer.ts';
import { until } from './support/cluster-helpers.ts';
import { hostAndDialer, routeFor } from './support/circuit-routers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import type { RouterRun } from './support/router-fixture.ts';
import type { EnrolledRouter, ScriptedRouter } from './support/scripted-router.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-flow-control-'));
let controller: ControllerFixture;
let admin: Record<string, string>;
let hostId: string;
let host: RouterRun | undefined;
let hostLinkPort: number;
let sender: { enrolled: EnrolledRouter; channel: ScriptedRouter };
let link: RawLinkPeer | undefined;
let linkId: string;
let service: Server;
const serviceSockets: Socket[] = [];
let request: (body: Record<string, unknown>) => Promise<any>;

/** The hosting router's `circuit.buffered_bytes` as the controller exposes it, or undefined before its first report. */
async function hostBufferedBytes(): Promise<number | undefined> {
  const text = (await controller.http.get(`${controller.origin}/metrics`)).text;
  const match = new RegExp(`^edgeward_router_circuit_buffered_bytes\\{router_id="${hostId}"\\} (\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
  // The service accepts and never reads.
  service = createServer({ pauseOnConnect: true }, (socket) => {
    serviceSockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', () => resolve()));
  // The hosting router, a real process, reporting its metrics every 200 ms; the scripted sender may Dial the service.
  const hosting = await hostAndDialer(controller, admin, join(root, 'host'), {
    prefix: 'flow',
    service: 'slow-reader',
    servicePort: (service.address() as { port: number }).port,
    extraYaml: 'metrics: {reportInterval: 200ms, intervalAgeThreshold: 100ms}\n',
  });
  ({ hostId, host, hostLinkPort, request } = hosting);
  sender = hosting.dialer;

  // A real link from the scripted router to the hosting router's link listener, reported by both ends.
  linkId = `flow-link-${Date.now()}`;
  const { certPem, keyPem, serverCertPem } = sender.enrolled;
  link = await until(
    'a welcomed link',
    async () => {
      try {
        return await rawLinkPeer(hostLinkPort, { certPem, keyPem, serverCertPem, serverKeyPem: keyPem, caPem: controller.caPem }, sender.enrolled.id, linkId);
      } catch {
        return undefined;
      }
    },
    20_000,
  );
  sender.channel.send({ type: 'router.links', links: [{ id: linkId, destRouterId: hostId, latencyMs: 1 }] });
});

after(async () => {
  link?.socket.destroy();
  sender?.channel.close();
  await host?.stop();
  for (const socket of serviceSockets) socket.destroy();
  service?.close();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('a router that ignores acknowledgements loses its circuit, and the hosting router holds at most one window for it', async () => {
  const peer = link ?? assert.fail('no link to the hosting router');
  const signed = await routeFor<SignedRoute>(request, 'slow-reader');
  const route = JSON.parse(signed.text) as { circuitId: string; routers: string[] };
  assert.deepEqual(route.routers, [sender.enrolled.id, hostId]);
  peer.send({ type: 'c.setup', circuitId: route.circuitId, route: signed, hop: 1 });
  await peer.frame('c.ready', (frame) => frame.type === 'c.ready' && frame.circuitId === route.circuitId, 10_000);
  await until('the service dialed', async () => (serviceSockets.length === 1 ? true : undefined), 5_000);

  // The controller's view of the hosting router's buffered bytes, polled throughout the flood.
  let worst = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      worst = Math.max(worst, (await hostBufferedBytes()) ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const payload = randomBytes(FramedSocket.maxDataBytes);
  const closed = () => peer.frames.some((frame) => frame.type === 'c.close' && frame.circuitId === route.circuitId);
  const started = performance.now();
  let sent = 0;
  // About 6 MB/s: slow enough for the 200 ms reports to see the buffer grow, and with no regard for any window.
  while (sent < 96 * 1024 * 1024 && !closed() && performance.now() - started < 30_000) {
    if ((await peer.sendData(route.circuitId, payload, 5_000)) !== 'written') break;
    sent += payload.length;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const close = await peer.frame('c.close for the circuit', (frame) => frame.type === 'c.close' && frame.circuitId === route.circuitId, 15_000);
  // One more report after the close, so the poll has seen the whole flood.
  await new Promise((resolve) => setTimeout(resolve, 600));
  polling = false;
  await poller;

  assert.deepEqual({ graceful: close.graceful, reason: close.reason }, { graceful: false, reason: windowOverrunReason });
  assert.ok(sent > defaultWindowBytes, `the sender got ${sent} bytes out before the close`);
  assert.ok(worst > 0, 'the controller saw the hosting router hold bytes for the circuit');
  assert.ok(worst <= defaultWindowBytes + windowSlackBytes, `the hosting router held ${worst} bytes, over its window (${defaultWindowBytes}) plus one frame`);
  const line = await host!.waitForLog((entry) => entry.msg === 'circuit closed: the sender exceeded the flow-control window', 5_000, 'the overrun logged');
  assert.equal(line.circuitId, route.circuitId);
  assert.equal(line.peerRouterId, sender.enrolled.id);
  assert.equal(line.level, 'warn');
  assert.ok(!peer.closed, 'the link stays up: only the circuit is closed');
});
