// The demo's data plane, set up through the management API as an operator would, and idempotently (every start
// runs it; an earlier start's rows are updated, not duplicated): the routers are tunneler-enabled, a host.v1 config
// points at the demo's echo server, the service `demo-echo` carries it, the hosting routers may Bind it and the
// proxying router may Dial it; as OpenZiti's quick start does, `#all` edge router and service edge router policies
// (`allEdgeRouters`, `allSvcAllRouters`) let every identity use every router and every service every router. Then the demo waits until a request through router1's proxy port comes back from the
// echo server: the overlay carries traffic before the demo says it is up.
import { request } from 'node:http';
import { until } from './demo-cluster.ts';
import { demoServiceName, type DemoTunnel } from './demo-router-config.ts';
import type { ManagementApi } from './demo-routers.ts';

/** demo.json's `dataPlane` (these keys are a contract): `host:port` strings. */
export interface DemoDataPlane {
  service: string;
  /** router1's proxy listener for the service. */
  proxy: string;
  /** The echo server behind router2. */
  upstream: string;
  /** The SDK path (demo-sdk-client.ts): the tunnel's proxy port for the service, its identity file and name. */
  sdkProxy: string;
  sdkIdentityFile: string;
  sdkIdentity: string;
}

export interface DataPlaneRouter {
  readonly id: string;
  readonly tunnel: DemoTunnel;
}

type Row = { id: string; name: string; [key: string]: unknown };

export async function findByName(api: ManagementApi, collection: string, name: string): Promise<Row | undefined> {
  const listed = await api.request('GET', `/${collection}?filter=${encodeURIComponent(`name = "${name}"`)}`);
  if (listed.status !== 200 || !Array.isArray(listed.data)) throw new Error(`listing ${collection}: HTTP ${listed.status} ${listed.text}`);
  return (listed.data as Row[]).find((row) => row.name === name);
}

/** Creates the row, or brings an existing one of that name to `body` (PATCH); returns its id. */
export async function upsert(api: ManagementApi, collection: string, body: { name: string; [key: string]: unknown }): Promise<string> {
  const existing = await findByName(api, collection, body.name);
  if (existing) {
    const { name: _name, ...changes } = body;
    const patched = await api.request('PATCH', `/${collection}/${existing.id}`, changes);
    if (patched.status !== 200) throw new Error(`updating ${collection} ${body.name}: HTTP ${patched.status} ${patched.text}`);
    return existing.id;
  }
  const created = await api.request('POST', `/${collection}`, body);
  const id = (created.data as { id?: unknown } | undefined)?.id;
  if (created.status !== 201 || typeof id !== 'string') throw new Error(`creating ${collection} ${body.name}: HTTP ${created.status} ${created.text}`);
  return id;
}

export async function ensureDemoDataPlane(api: ManagementApi, routers: readonly DataPlaneRouter[], upstream: { host: string; port: number }): Promise<void> {
  for (const router of routers) {
    const patched = await api.request('PATCH', `/edge-routers/${router.id}`, { isTunnelerEnabled: true });
    if (patched.status !== 200) throw new Error(`making router ${router.id} tunneler-enabled: HTTP ${patched.status} ${patched.text}`);
  }
  const configId = await upsert(api, 'configs', { name: `${demoServiceName}-host`, configTypeId: 'host.v1', data: { protocol: 'tcp', address: upstream.host, port: upstream.port } });
  const serviceId = await upsert(api, 'services', { name: demoServiceName, encryptionRequired: true, roleAttributes: ['demo'], configs: [configId] });
  const hosts = routers.filter((router) => router.tunnel.mode === 'host').map((router) => `@${router.id}`);
  const dialers = routers.filter((router) => router.tunnel.mode === 'proxy').map((router) => `@${router.id}`);
  await upsert(api, 'service-policies', { name: `${demoServiceName}-bind`, type: 'Bind', semantic: 'AnyOf', identityRoles: hosts, serviceRoles: [`@${serviceId}`], postureCheckRoles: [] });
  await upsert(api, 'service-policies', { name: `${demoServiceName}-dial`, type: 'Dial', semantic: 'AnyOf', identityRoles: dialers, serviceRoles: [`@${serviceId}`], postureCheckRoles: [] });
  await upsert(api, 'edge-router-policies', { name: 'allEdgeRouters', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
  await upsert(api, 'service-edge-router-policies', { name: 'allSvcAllRouters', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] });
}

/** GET through the proxy port; resolves with the body when the echo server answered it. */
export function getThrough(proxy: string, path: string, timeoutMs = 5000): Promise<string> {
  const [host, port] = [proxy.slice(0, proxy.lastIndexOf(':')), Number(proxy.slice(proxy.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk.length + body.length > 65_536 ? '' : chunk));
      response.on('end', () => (response.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${response.statusCode}: ${body.slice(0, 200)}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => reject(new Error(`through ${proxy}: ${error.message}`)));
    req.end();
  });
}

/** Waits until a request through the proxy reaches the echo server over the routers. */
export async function waitForDataPlane(proxy: string, timeoutMs: number, guard: () => void): Promise<void> {
  await until(
    `a request through ${proxy} to reach the echo server over the overlay`,
    async () => {
      const body = await getThrough(proxy, '/demo/ready');
      if (!body.includes('/demo/ready')) throw new Error(`unexpected answer: ${body.slice(0, 200)}`);
      return true;
    },
    timeoutMs,
    guard,
    500,
  );
}
