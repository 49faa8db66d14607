// The routers the cross-process circuit tests set up, each written once: a real router enrolled with
// `./edgeward router enroll` and started from the router.yml a test writes, a scripted router enrolled at
// `/enroll/erott` and welcomed on the control channel, and the management-API and control-channel calls both need.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './cluster-helpers.ts';
import type { ControllerFixture } from './controller-fixture.ts';
import { freePort } from './free-port.ts';
import { OpensslWorkbench } from './openssl-workbench.ts';
import { RouterRun, runEdgeward } from './router-fixture.ts';
import { enrollRouter, ScriptedRouter, type EnrolledRouter } from './scripted-router.ts';

export type AdminHeaders = Record<string, string>;

/** POSTs `body` to the management API at `path`, asserts it was created and answers its id. */
export function managementPoster(controller: Pick<ControllerFixture, 'http' | 'managementApi'>, admin: AdminHeaders): (path: string, body: Record<string, unknown>) => Promise<string> {
  return async (path, body) => {
    const response = await controller.http.post(`${controller.managementApi}${path}`, { headers: admin, body });
    assert.equal(response.status, 201, response.text);
    return response.json.data.id as string;
  };
}

/** The parts of a test router.yml that vary: the lines under `ctrl:` after its endpoint, the tunnel's options, the rest. */
export interface RouterYamlSpec {
  readonly ctrlAddress: string;
  readonly edgePort: number;
  /** The tunnel listener's options in flow style, e.g. `{mode: host}`. */
  readonly tunnel: string;
  /** Top-level sections after the listeners (`link:` and the like), as YAML text. */
  readonly tail: string;
  /** Top-level sections between `forwarder:` and `listeners:` (e.g. `metrics:`), as YAML text. */
  readonly before?: string;
}

/** A router.yml with its identity beside it, a loopback edge listener, a tunnel listener and quick latency probes. */
export function circuitRouterYaml(spec: RouterYamlSpec): string {
  return `v: 3
identity: {cert: router.cert, server_cert: router.server.cert, key: router.key, ca: ca.pem}
ctrl:
  endpoint: ${spec.ctrlAddress}
edge:
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
forwarder:
  latencyProbeInterval: 300
${spec.before ?? ''}listeners:
  - binding: edge
    address: tls:127.0.0.1:${spec.edgePort}
    options: {advertise: 127.0.0.1:${spec.edgePort}}
  - binding: tunnel
    options: ${spec.tunnel}
${spec.tail}`;
}

/** What varies in a cross-process test's router.yml; the rest is the same loopback router every such test runs. */
export interface TestRouterSpec {
  /** The controller's `tls:<host>:<port>` the router dials. */
  readonly endpoint: string;
  /** 1 s control-channel heartbeats and an unresponsive channel closed after 4 s (failover tests). */
  readonly quickHeartbeats?: boolean;
  /** Lines under `forwarder:` after `latencyProbeInterval` (e.g. `  maxCircuitsPerIdentity: 2`). */
  readonly forwarder?: string;
  /** Top-level sections between `forwarder:` and `listeners:` (e.g. `metrics: {...}`), as YAML text. */
  readonly before?: string;
  /** Listener items after the loopback edge listener, each a YAML list item (`  - binding: tunnel\n    options: ...`). */
  readonly listeners?: readonly string[];
  /** A top-level `transport` dialer (it dials administrators' terminators); true unless said otherwise. */
  readonly transportDialer?: boolean;
  /** Top-level sections at the end (`link:` and the like), as YAML text. */
  readonly tail?: string;
}

/** A router.yml with its identity beside it, `edge.csr` for loopback, an edge listener on `edgePort` and `spec`'s parts. */
export function testRouterYaml(spec: TestRouterSpec, edgePort: number): string {
  const listeners = [`  - binding: edge\n    address: tls:127.0.0.1:${edgePort}\n    options: {advertise: 127.0.0.1:${edgePort}}`, ...(spec.listeners ?? [])];
  return `v: 3
identity: {cert: router.cert, server_cert: router.server.cert, key: router.key, ca: ca.pem}
ctrl:
  endpoint: ${spec.endpoint}
${spec.quickHeartbeats ? '  heartbeats: {sendInterval: 1s, checkInterval: 200ms, closeUnresponsiveTimeout: 4s}\n' : ''}edge:
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
forwarder:
  latencyProbeInterval: 300
${spec.forwarder ? `${spec.forwarder}\n` : ''}${spec.before ? `${spec.before}\n` : ''}listeners:
${listeners.join('\n')}
${spec.transportDialer === false ? '' : 'dialers:\n  - binding: transport\n'}${spec.tail ?? ''}
`;
}

/**
 * Router `name` (created with `body`) written from `spec` into `dir` with a free edge port, and enrolled with
 * `./edgeward router enroll` (enrollRouterProcess). Answers its id, config path and edge port.
 */
export async function enrollTestRouter(
  controller: ControllerFixture,
  admin: AdminHeaders,
  dir: string,
  name: string,
  spec: TestRouterSpec,
  body: Record<string, unknown>,
): Promise<{ id: string; config: string; edgePort: number }> {
  const edgePort = await freePort();
  const { id, config } = await enrollRouterProcess(controller, admin, dir, testRouterYaml(spec, edgePort), name, body);
  return { id, config, edgePort };
}

/** A router file's `link:` section with one transport listener on 127.0.0.1:`port`, in the default group. */
export const linkListenerYaml = (port: number): string =>
  `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${port}", advertise: "tls:127.0.0.1:${port}", groups: [default]}`;

/** A link dialer of group `default` that retries quickly (200 ms, up to 1 s), as a `link:` section. */
export const quickLinkDialer = 'link:\n  dialers:\n    - binding: transport\n      groups: [default]\n      healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}';

/**
 * Creates router `name` (with `body`) in the management API, writes `yaml` as `dir`/router.yml and enrolls it with
 * `./edgeward router enroll` and the enrollment JWT the controller issued. Answers its id and config path.
 */
export async function enrollRouterProcess(
  controller: Pick<ControllerFixture, 'http' | 'managementApi'>,
  admin: AdminHeaders,
  dir: string,
  yaml: string,
  name: string,
  body: Record<string, unknown>,
): Promise<{ id: string; config: string }> {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'router.yml');
  writeFileSync(config, yaml);
  const id = await managementPoster(controller, admin)('/edge-routers', { name, ...body });
  const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${id}`, { headers: admin });
  writeFileSync(join(dir, 'enroll.jwt'), detail.json.data.enrollmentJwt);
  const enrolled = await runEdgeward(['router', 'enroll', config, '--jwt', join(dir, 'enroll.jwt')]);
  assert.equal(enrolled.code, 0, enrolled.stderr);
  return { id, config };
}

/** Starts an enrolled router from its config and waits (30 s) until its control channel is established. */
export async function startWelcomedRouter(config: string, what: string): Promise<RouterRun> {
  const run = RouterRun.start(config);
  await run.waitForLog((line) => line.msg === 'control channel established', 30_000, what);
  return run;
}

/** A scripted router: created as `name` (with `body`), enrolled at `/enroll/erott`, welcomed on the control channel. */
export async function welcomedScriptedRouter(
  controller: ControllerFixture,
  admin: AdminHeaders,
  workbench: OpensslWorkbench,
  name: string,
  body: Record<string, unknown>,
): Promise<{ enrolled: EnrolledRouter; channel: ScriptedRouter }> {
  const id = await managementPoster(controller, admin)('/edge-routers', { name, ...body });
  const detail = await controller.http.get(`${controller.managementApi}/edge-routers/${id}`, { headers: admin });
  const enrolled = await enrollRouter(controller, workbench, id, detail.json.data.enrollmentToken as string);
  const channel = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, enrolled);
  channel.hello(id);
  await channel.next('ctrl.welcome');
  return { enrolled, channel };
}

/** Sends a control-channel request over `channel` and answers its response (each within 10 s). */
export function controlRequester(channel: ScriptedRouter): (body: Record<string, unknown>) => Promise<any> {
  let rid = 0;
  return async (body) => {
    const id = ++rid;
    channel.send({ type: 'req', rid: id, body });
    for (;;) {
      const answer = await channel.next('res', 10_000);
      if (answer.rid === id) return answer;
    }
  };
}

/** A genuine signed route for `service`, asked over the control channel until the controller can route it (20 s). */
export function routeFor<Route>(request: (body: Record<string, unknown>) => Promise<any>, service: string): Promise<Route> {
  return until('a route over the link', async () => {
    const answer = await request({ op: 'circuit.create', service });
    return answer.ok && answer.value.route ? (answer.value.route as Route) : undefined;
  }, 20_000);
}

/**
 * `#all` edge router and service edge router policies named `${prefix}-…`, as OpenZiti's quick start creates: every
 * identity may use every router and every service every router, so a scenario that means "allowed" is allowed.
 */
export async function allowEveryRouter(post: (path: string, body: Record<string, unknown>) => Promise<string>, prefix: string): Promise<void> {
  await post('/edge-router-policies', { name: `${prefix}-all-routers`, semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
  await post('/service-edge-router-policies', { name: `${prefix}-all-services`, semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
}

/**
 * Service `name` hosted at 127.0.0.1:`port` (a host.v1 config `${prefix}-host`), bound by routers with role
 * `hosting` and dialed by routers with role `dialer` (policies `${prefix}-bind`, `${prefix}-dial`), with `#all`
 * router policies (allowEveryRouter). Answers its id.
 */
export async function hostedService(post: (path: string, body: Record<string, unknown>) => Promise<string>, prefix: string, name: string, port: number): Promise<string> {
  const hostConfig = await post('/configs', { name: `${prefix}-host`, configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port } });
  const serviceId = await post('/services', { name, encryptionRequired: true, roleAttributes: [name], configs: [hostConfig] });
  await post('/service-policies', { name: `${prefix}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: ['#hosting'], serviceRoles: [`#${name}`], postureCheckRoles: [] });
  await post('/service-policies', { name: `${prefix}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: ['#dialer'], serviceRoles: [`#${name}`], postureCheckRoles: [] });
  await allowEveryRouter(post, prefix);
  return serviceId;
}

/** Starts every router of `routers` and waits (30 s each) until each is welcomed on its control channel. */
export async function startWelcomedRouters<R extends { config: string; run?: RouterRun }>(routers: Record<string, R>, names: readonly string[]): Promise<void> {
  for (const name of names) routers[name]!.run = RouterRun.start(routers[name]!.config);
  for (const name of names) await routers[name]!.run!.waitForLog((line) => line.msg === 'control channel established', 30_000, `${name} welcomed`);
}

/** Waits until every controller of a cluster lists exactly `count` terminators (each asked as its own admin). */
export async function terminatorsOnEveryController(nodes: readonly ControllerFixture[], count: number, what: string): Promise<void> {
  await until(what, async () => {
    for (const node of nodes) {
      const list = await node.http.get(`${node.managementApi}/terminators`, { headers: { 'zt-session': await node.adminToken() } });
      if (list.json?.data?.length !== count) return false;
    }
    return true;
  });
}

/** A real router hosting a service with a link listener, and a scripted router that may Dial it. */
export interface HostAndDialer {
  readonly hostId: string;
  readonly host: RouterRun;
  readonly hostLinkPort: number;
  readonly dialer: { enrolled: EnrolledRouter; channel: ScriptedRouter };
  /** A control-channel request from the scripted router. */
  readonly request: (body: Record<string, unknown>) => Promise<any>;
}

/**
 * Service `service` at 127.0.0.1:`servicePort` (see hostedService), bound by a real router `${prefix}-host-router`
 * (enrolled and run from `dir`, a host-mode tunnel and a link listener, `extraYaml` before its listeners) and dialable
 * by the scripted router `${prefix}-scripted-router`, welcomed on the control channel.
 */
export async function hostAndDialer(
  controller: ControllerFixture,
  admin: AdminHeaders,
  dir: string,
  spec: { prefix: string; service: string; servicePort: number; extraYaml?: string },
): Promise<HostAndDialer> {
  await hostedService(managementPoster(controller, admin), spec.prefix, spec.service, spec.servicePort);
  const hostLinkPort = await freePort();
  const yaml = circuitRouterYaml({
    ctrlAddress: controller.ctrlAddress,
    edgePort: await freePort(),
    ...(spec.extraYaml ? { before: spec.extraYaml } : {}),
    tunnel: '{mode: host}',
    tail: `link:\n  listeners:\n    - {binding: transport, bind: "tls:127.0.0.1:${hostLinkPort}", advertise: "tls:127.0.0.1:${hostLinkPort}"}\n`,
  });
  const hosting = await enrollRouterProcess(controller, admin, dir, yaml, `${spec.prefix}-host-router`, { isTunnelerEnabled: true, roleAttributes: ['hosting'] });
  const host = await startWelcomedRouter(hosting.config, 'the hosting router welcomed');
  const workbench = new OpensslWorkbench(join(controller.root, 'router-certs'));
  const dialer = await welcomedScriptedRouter(controller, admin, workbench, `${spec.prefix}-scripted-router`, { isTunnelerEnabled: true, roleAttributes: ['dialer'] });
  return { hostId: hosting.id, host, hostLinkPort, dialer, request: controlRequester(dialer.channel) };
}
