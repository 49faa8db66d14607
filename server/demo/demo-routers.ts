// The demo's two routers, router1 and router2, as an operator sets them up: each gets a folder and a config with
// ports kept from an earlier start; on the first start the admin creates them as edge routers through a
// controller's management API and each is enrolled with its one-time JWT (`./edgeward router enroll`); later starts
// find their identity files and skip both steps. Once running, they are waited for until each passes its
// controllerPing check and lists a link to the other.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitForExit, spawnEdgeward } from './child-process.ts';
import { until } from './demo-cluster.ts';
import { demoRouterConfig, demoRouterFiles, demoRouterHost, demoServiceName, storedRouterPorts, type DemoRouterFiles, type DemoRouterPorts, type DemoTunnel } from './demo-router-config.ts';
import { httpsJson } from './https-json.ts';
import { freeLoopbackPort } from './loopback-port.ts';

/** A router as demo.json lists it (these keys are a contract). */
export interface DemoRouter {
  /** The router's id in the network (its edge router id, the common name of its certificate); set once enrolled. */
  id: string;
  pid: number;
  config: string;
  healthChecks: string;
  endpointsFile: string;
}

export interface RouterPlan {
  /** router1, router2: the edge router's name and its folder's. */
  readonly name: string;
  readonly entry: DemoRouter;
  readonly files: DemoRouterFiles;
  readonly linkAddress: string;
  /** router1: proxies the demo service (its `host:port`); router2: hosts it. */
  readonly tunnel: DemoTunnel;
  readonly proxyAddress?: string;
}

export const demoRouterNames = ['router1', 'router2'] as const;
const firstPorts: Required<DemoRouterPorts> = { link: 4021, health: 8081, edge: 3022, proxy: 8480 };
/** The data plane of the demo: the first router proxies the demo service, the others host it. */
const tunnelOf = (index: number): DemoTunnel => (index === 0 ? { mode: 'proxy', service: demoServiceName } : { mode: 'host' });

/** The router's folder, ports and config (rewritten on every start); ports are kept from an earlier start. */
export async function planRouter(root: string, name: string, index: number, controllers: readonly string[], taken: Set<number>): Promise<RouterPlan> {
  const files = demoRouterFiles(join(root, name));
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  const stored = storedRouterPorts(existsSync(files.config) ? readFileSync(files.config, 'utf8') : undefined);
  const choose = async (key: keyof DemoRouterPorts) => {
    const previous = stored[key];
    const port = await freeLoopbackPort([...(previous === undefined ? [] : [previous]), firstPorts[key] + index], taken);
    taken.add(port);
    return port;
  };
  const tunnel = tunnelOf(index);
  const ports: DemoRouterPorts = {
    link: await choose('link'),
    health: await choose('health'),
    edge: await choose('edge'),
    ...(tunnel.mode === 'proxy' ? { proxy: await choose('proxy') } : {}),
  };
  writeFileSync(files.config, demoRouterConfig(name, files, ports, controllers, tunnel), { mode: 0o600 });
  return {
    name,
    files,
    linkAddress: `tls:${demoRouterHost}:${ports.link}`,
    tunnel,
    ...(ports.proxy !== undefined ? { proxyAddress: `${demoRouterHost}:${ports.proxy}` } : {}),
    entry: {
      id: enrolledRouterId(files) ?? '',
      pid: 0,
      config: files.config,
      healthChecks: `https://${demoRouterHost}:${ports.health}/health-checks`,
      endpointsFile: files.endpointsFile,
    },
  };
}

/** A router of this folder still running from another demo answers on the health port its config names: refuse, saying why. */
export async function refuseIfRouterRunning(root: string, name: string, caPem: string): Promise<void> {
  const files = demoRouterFiles(join(root, name));
  const { health } = storedRouterPorts(existsSync(files.config) ? readFileSync(files.config, 'utf8') : undefined);
  if (health === undefined) return;
  const url = `https://${demoRouterHost}:${health}/health-checks`;
  const answer = await httpsJson(url, { ca: caPem, timeoutMs: 2000 }).catch(() => undefined);
  const checks = (answer?.json as { data?: { checks?: { id?: unknown }[] } } | undefined)?.data?.checks;
  if (Array.isArray(checks) && checks.some((check) => check?.id === 'controllerPing')) {
    throw new Error(`router ${name} is already running (its health checks ${url} answer); is another demo using this data folder?`);
  }
}

export interface ProvisionOptions {
  /** Management API base URLs, in the order to try them (the leader's first). */
  readonly managementApis: readonly string[];
  readonly caPem: string;
  readonly admin: { readonly username: string; readonly password: () => string };
  readonly log: (line: string) => void;
  readonly guard: () => void;
  readonly timeoutMs: number;
}

/**
 * Creates and enrolls the routers that have no identity files yet (all of them on a fresh folder), then sets every
 * plan's id from its certificate. A router of that name that already exists (an earlier start stopped half-way) is
 * re-enrolled rather than created twice.
 */
export async function provisionRouters(plans: readonly RouterPlan[], options: ProvisionOptions): Promise<void> {
  const missing = plans.filter((plan) => enrolledRouterId(plan.files) === undefined);
  if (missing.length > 0) {
    const api = await managementSession(options);
    try {
      for (const plan of missing) {
        const id = await until(`edge router ${plan.name} on the management API`, () => findOrCreate(api, plan, options.log), options.timeoutMs, options.guard, 1000);
        const jwt = await until(`the enrollment JWT of ${plan.name}`, () => enrollmentJwt(api, id), options.timeoutMs, options.guard, 1000);
        writeFileSync(plan.files.jwt, `${jwt}\n`, { mode: 0o600 });
      }
    } finally {
      await api.logout();
    }
    await Promise.all(missing.map((plan) => enroll(plan, options)));
  }
  for (const plan of plans) {
    const id = enrolledRouterId(plan.files);
    if (id === undefined) throw new Error(`router ${plan.name} has no certificate after enrollment; see ${plan.files.logFile}`);
    plan.entry.id = id;
  }
}

/** Waits until every router passes controllerPing and lists a link to each other router. */
export async function waitForRouterLinks(plans: readonly RouterPlan[], caPem: string, timeoutMs: number, guard: () => void): Promise<void> {
  await Promise.all(
    plans.map((plan) => {
      const others = plans.filter((other) => other !== plan);
      return until(
        `${plan.name} to reach a controller and link to ${others.map((other) => other.name).join(', ')}`,
        async () => {
          const { status, json } = await httpsJson(plan.entry.healthChecks, { ca: caPem, timeoutMs: 2000 });
          const checks = (json as { data?: { checks?: HealthCheck[] } } | undefined)?.data?.checks;
          if (status !== 200 || !Array.isArray(checks)) throw new Error(`HTTP ${status} from ${plan.entry.healthChecks}`);
          const ping = checks.find((check) => check.id === 'controllerPing');
          if (!ping?.healthy) throw new Error(`controllerPing: ${ping?.err?.message ?? 'not reported'}`);
          const linked = (checks.find((check) => check.id === 'link.health')?.details ?? []).map((link) => link.destRouterId);
          const unlinked = others.filter((other) => !linked.includes(other.entry.id));
          if (unlinked.length > 0) throw new Error(`no link to ${unlinked.map((other) => other.name).join(', ')} yet`);
          return true;
        },
        timeoutMs,
        guard,
      );
    }),
  );
}

interface HealthCheck {
  id: string;
  healthy: boolean;
  err?: { message?: string } | null;
  details?: { destRouterId?: string }[] | null;
}

/** The router's id when it is enrolled: every identity file is there, and the certificate names it. */
function enrolledRouterId(files: DemoRouterFiles): string | undefined {
  if (![files.cert, files.serverCert, files.key, files.ca].every((file) => existsSync(file))) return undefined;
  try {
    const subject = new X509Certificate(readFileSync(files.cert)).subject;
    return /^CN=(.+)$/m.exec(subject)?.[1];
  } catch {
    return undefined;
  }
}

export interface ManagementApi {
  readonly base: string;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; data: unknown }>;
  /** Ends the session (best effort), so that no activity of it is left for a controller to write when it stops. */
  logout(): Promise<void>;
}

/** An admin session on the first management API that accepts the admin's login. */
export async function managementSession(options: ProvisionOptions): Promise<ManagementApi> {
  const { caPem } = options;
  let attempt = 0;
  return until(
    'an admin session on a controller',
    async () => {
      const base = options.managementApis[attempt++ % options.managementApis.length]!;
      const login = await httpsJson(`${base}/authenticate?method=password`, {
        ca: caPem,
        method: 'POST',
        body: { username: options.admin.username, password: options.admin.password() },
      });
      const token = (login.json as { data?: { token?: unknown } } | undefined)?.data?.token;
      if (login.status !== 200 || typeof token !== 'string') throw new Error(`login on ${base}: HTTP ${login.status} ${errorCode(login.json)}`);
      const request: ManagementApi['request'] = async (method, path, body) => {
        const response = await httpsJson(`${base}${path}`, { ca: caPem, method, headers: { 'zt-session': token }, ...(body === undefined ? {} : { body }) });
        return { status: response.status, text: response.text, data: (response.json as { data?: unknown } | undefined)?.data };
      };
      const logout = async () => void (await request('DELETE', '/current-api-session').catch(() => undefined));
      return { base, request, logout } satisfies ManagementApi;
    },
    options.timeoutMs,
    options.guard,
    500,
  );
}

/** The edge router named like the plan: found, or created (looking first, as a timed-out create may have been committed). */
async function findOrCreate(api: ManagementApi, plan: RouterPlan, log: (line: string) => void): Promise<string> {
  const listed = await api.request('GET', `/edge-routers?filter=${encodeURIComponent(`name = "${plan.name}"`)}`);
  if (listed.status !== 200 || !Array.isArray(listed.data)) throw new Error(`listing edge routers: HTTP ${listed.status} ${listed.text}`);
  const existing = (listed.data as { id?: unknown; name?: unknown }[]).find((row) => row.name === plan.name && typeof row.id === 'string');
  if (existing) {
    log(`edge router ${plan.name} exists already (id ${existing.id}) but this folder has no identity for it; enrolling it again`);
    return existing.id as string;
  }
  // Tunneler-enabled: a router's identity (itself) may then Bind or Dial the demo service (demo-data-plane.ts).
  const created = await api.request('POST', '/edge-routers', { name: plan.name, isTunnelerEnabled: true });
  const id = (created.data as { id?: unknown } | undefined)?.id;
  if (created.status !== 201 || typeof id !== 'string') throw new Error(`creating edge router ${plan.name}: HTTP ${created.status} ${created.text}`);
  log(`created edge router ${plan.name} (id ${id}) on ${api.base}`);
  return id;
}

/** The router's open enrollment JWT; a router already enrolled, or whose token expires soon, is re-enrolled for a new one. */
async function enrollmentJwt(api: ManagementApi, id: string): Promise<string> {
  const open = async () => {
    const detail = await api.request('GET', `/edge-routers/${id}`);
    if (detail.status !== 200) throw new Error(`reading edge router ${id}: HTTP ${detail.status} ${detail.text}`);
    const { enrollmentJwt: jwt, enrollmentExpiresAt: expires } = detail.data as { enrollmentJwt?: unknown; enrollmentExpiresAt?: unknown };
    // A minute of margin: the token must still be valid when the router presents it.
    return typeof jwt === 'string' && jwt !== '' && typeof expires === 'string' && Date.parse(expires) > Date.now() + 60_000 ? jwt : undefined;
  };
  const current = await open();
  if (current !== undefined) return current;
  const renewed = await api.request('POST', `/edge-routers/${id}/re-enroll`);
  if (renewed.status !== 200) throw new Error(`re-enrolling edge router ${id}: HTTP ${renewed.status} ${renewed.text}`);
  const fresh = await open();
  if (fresh === undefined) throw new Error(`edge router ${id} shows no enrollment JWT after re-enroll`);
  return fresh;
}

/** `./edgeward router enroll <config> --jwt <file>`, its output appended to the router's log. */
async function enroll(plan: RouterPlan, options: ProvisionOptions): Promise<void> {
  options.guard();
  const child = spawnEdgeward(['router', 'enroll', plan.files.config, '--jwt', plan.files.jwt], { outputFile: plan.files.logFile });
  if (!(await waitForExit(child, options.timeoutMs))) {
    child.kill('SIGKILL');
    throw new Error(`router ${plan.name} did not enroll within ${Math.round(options.timeoutMs / 1000)} s; see ${plan.files.logFile}`);
  }
  const code = child.exitCode;
  if (code !== 0) throw new Error(`router ${plan.name} could not enroll (./edgeward router enroll exited with ${code ?? child.signalCode}); see ${plan.files.logFile}`);
  options.log(`enrolled ${plan.name} (${plan.files.config})`);
}

function errorCode(json: unknown): string {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : '';
}
