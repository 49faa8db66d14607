// The config file of one demo router (`<data>/<router>/router.yml`, v3) and the files it names, all in the router's
// folder; and the ports an earlier start wrote into it, so a router keeps them (pure: text in, text out).
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';

export interface DemoRouterFiles {
  readonly dir: string;
  readonly config: string;
  readonly cert: string;
  readonly serverCert: string;
  readonly key: string;
  readonly ca: string;
  readonly endpointsFile: string;
  readonly edgeDb: string;
  readonly jwt: string;
  readonly logFile: string;
}

export interface DemoRouterPorts {
  /** The link listener, which the other router dials. */
  readonly link: number;
  /** The health-checks API. */
  readonly health: number;
  /** The edge listener an `edge` section requires (the address SDKs would be told). */
  readonly edge: number;
  /** router1's proxy listener for the demo service (absent for a router without one). */
  readonly proxy?: number;
}

/** The demo's data plane: router1 proxies the demo service, router2 hosts it. */
export type DemoTunnel = { readonly mode: 'proxy'; readonly service: string } | { readonly mode: 'host' };

export const demoServiceName = 'demo-echo';

export function demoRouterFiles(dir: string): DemoRouterFiles {
  const config = join(dir, 'router.yml');
  return {
    dir,
    config,
    cert: join(dir, 'cert.pem'),
    serverCert: join(dir, 'server-cert.pem'),
    key: join(dir, 'key.pem'),
    ca: join(dir, 'ca.pem'),
    endpointsFile: join(dir, 'endpoints'),
    edgeDb: `${config}.proto.gzip`,
    jwt: join(dir, 'enroll.jwt'),
    logFile: join(dir, 'router.log'),
  };
}

export const demoRouterHost = '127.0.0.1';

/** The router's config: the three controllers, one link listener and dialer in group `default`, health checks on loopback. */
export function demoRouterConfig(name: string, files: DemoRouterFiles, ports: DemoRouterPorts, controllers: readonly string[], tunnel?: DemoTunnel): string {
  const host = demoRouterHost;
  const tunnelListener =
    tunnel?.mode === 'proxy' && ports.proxy !== undefined
      ? [{ binding: 'tunnel', options: { mode: 'proxy', services: [`${tunnel.service}:${ports.proxy}`], bindAddress: host } }]
      : tunnel?.mode === 'host'
        ? [{ binding: 'tunnel', options: { mode: 'host' } }]
        : [];
  const config = {
    v: 3,
    identity: { cert: files.cert, server_cert: files.serverCert, key: files.key, ca: files.ca },
    ctrl: { endpoints: [...controllers], endpointsFile: files.endpointsFile },
    edge: {
      db: files.edgeDb,
      // The certificates must be valid for the addresses other routers and health checks use.
      csr: { sans: { dns: ['localhost'], ip: [host] } },
    },
    listeners: [{ binding: 'edge', address: `tls:${host}:${ports.edge}`, options: { advertise: `${host}:${ports.edge}` } }, ...tunnelListener],
    dialers: [{ binding: 'transport' }],
    link: {
      listeners: [{ binding: 'transport', bind: `tls:${host}:${ports.link}`, advertise: `tls:${host}:${ports.link}`, groups: ['default'] }],
      dialers: [{ binding: 'transport', groups: ['default'] }],
    },
    healthChecks: {
      ctrlPingCheck: { interval: '5s', timeout: '5s', initialDelay: '1s' },
      // Healthy only while linked: the demo's two routers are meant to be linked to each other.
      linkCheck: { interval: '2s', initialDelay: '1s', minLinks: 1 },
    },
    metrics: { reportInterval: '15s', intervalAgeThreshold: '15s' },
    web: [{ name: 'health', bindPoints: [{ interface: `${host}:${ports.health}`, address: `${host}:${ports.health}` }], apis: [{ binding: 'health-checks' }] }],
  };
  const header = `# ${name} of the edgeward demo: written by ./edgeward demo on every start (its ports are kept from the last one).\n`;
  return header + stringify(config, { lineWidth: 0 });
}

/** The ports written by an earlier start, each when it can be read. */
export function storedRouterPorts(text: string | undefined): Partial<DemoRouterPorts> {
  if (text === undefined) return {};
  let config: {
    link?: { listeners?: { bind?: unknown }[] };
    web?: { bindPoints?: { interface?: unknown }[] }[];
    listeners?: { binding?: unknown; address?: unknown; options?: { services?: unknown } }[];
  };
  try {
    config = (parseYaml(text) ?? {}) as typeof config;
  } catch {
    return {};
  }
  const port = (value: unknown) => {
    const match = typeof value === 'string' ? /:(\d+)$/.exec(value) : null;
    const number = match ? Number(match[1]) : undefined;
    return number !== undefined && number > 0 && number < 65536 ? number : undefined;
  };
  const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
  const found = {
    link: port(list(config.link?.listeners)[0]?.bind),
    health: port(list(list(config.web)[0]?.bindPoints)[0]?.interface),
    edge: port(list(config.listeners).find((listener) => listener?.binding === 'edge')?.address),
    proxy: port(list(list(config.listeners).find((listener) => listener?.binding === 'tunnel')?.options?.services as unknown[] | undefined)[0]),
  };
  return Object.fromEntries(Object.entries(found).filter(([, value]) => value !== undefined));
}
