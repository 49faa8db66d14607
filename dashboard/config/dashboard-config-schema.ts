// The status page's YAML file as a schema: every key with its default and bounds, and the relations between keys.
// The schema is ours alone, so unknown keys are errors. docs/status-page.md documents each key.

import { isIP } from 'node:net';
import { parseHostPort } from '../../common/config/address.ts';
import { s } from '../../common/config/schema.ts';
import type { HostPort, Loose, RuleFinding } from '../../common/config/schema.ts';
import { runbooksPath } from '../page-server/runbooks-page.ts';

/** The longest poll interval: the page refreshes at least every 2 seconds. */
export const maxPollIntervalMs = 2000;

export const authModes = ['loopback-only', 'required'] as const;
export const logLevels = ['debug', 'info', 'warn', 'error'] as const;

/** True for an address only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/** `http://` or `https://` URL text, kept as written. With `originOnly`, no path, query or fragment. */
function url(what: string, options: { originOnly?: boolean } = {}) {
  return s
    .string({ minLength: 1 })
    .rule((value): RuleFinding[] => {
      if (typeof value !== 'string') return [];
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return [{ rule: 'url', message: `must be an http:// or https:// URL (${what})`, value }];
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return [{ rule: 'url', message: `must be an http:// or https:// URL, not ${parsed.protocol}`, value }];
      if (parsed.username !== '' || parsed.password !== '') return [{ rule: 'url', message: 'must not carry a user name or password', value }];
      if (options.originOnly && (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '')) {
        return [{ rule: 'origin', message: `must be the origin alone, like https://ctrl1.example.com:1280, without a path (${what})`, value }];
      }
      return [];
    })
    .transform((value) => (options.originOnly ? new URL(value).origin : value));
}

/** `host:port`; unlike a controller's bind point, port 0 (any free port) is allowed, for tests. */
const listenSchema = s
  .string({ minLength: 1 })
  .rule((value): RuleFinding[] => {
    if (typeof value !== 'string') return [];
    const parsed = parseHostPort(value.replace(/:0$/, ':1'));
    return parsed.ok ? [] : [{ rule: 'address', message: `"${value}": ${parsed.message}`, value }];
  })
  .transform((value): HostPort => {
    const zero = value.endsWith(':0');
    const parsed = parseHostPort(zero ? value.replace(/:0$/, ':1') : value);
    if (!parsed.ok) throw new Error(`listen address checked above: ${value}`);
    return zero ? { ...parsed.value, port: 0 } : parsed.value;
  });

const id = (what: string) => s.string({ pattern: /^[A-Za-z0-9][A-Za-z0-9._-]*$/, patternMessage: `must be ${what}: letters, digits, ".", "_" and "-"` });

const controllerSchema = s.object(
  {
    id: id('a controller id').required(),
    url: url('the controller\'s web origin, where /health-checks and /metrics are', { originOnly: true }).required(),
    eventsFile: s.path(),
  },
  { label: 'controller' },
);

const routerSchema = s.object(
  {
    id: id('a router id (the edge router\'s id, as the router_id metric label shows it)').required(),
    name: s.string({ minLength: 1 }),
    healthUrl: url('the router\'s /health-checks').required(),
  },
  { label: 'router' },
);

export const dashboardSchema = s
  .object({
    listen: listenSchema.default('127.0.0.1:9110'),
    auth: s.string({ enum: authModes }),
    tls: s.object({ cert: s.path().required(), key: s.path().required() }),
    controllers: s.array(controllerSchema, { minItems: 1, maxItems: 64 }).required(),
    routers: s.array(routerSchema, { maxItems: 256 }).default([]),
    caBundle: s.path(),
    alertsDaemon: s.object({ url: url('the alerts daemon\'s listen address, where /api/v1/status is', { originOnly: true }).required() }),
    credentials: s.object({ username: s.string({ minLength: 1 }).required(), passwordFile: s.path().required() }),
    pollInterval: s.duration({ min: '100ms', max: maxPollIntervalMs }).default('1s'),
    history: s.duration({ min: '1m', max: '1h' }).default('10m'),
    timeouts: s
      .object({
        request: s.duration({ min: '100ms', max: '30s' }).default('1500ms'),
        login: s.duration({ min: '1s', max: '1m' }).default('10s'),
      })
      .default({}),
    session: s
      .object({
        ttl: s.duration({ min: '1m', max: '168h' }).default('12h'),
        idleTimeout: s.duration({ min: '1m', max: '24h' }).default('30m'),
        maxSessions: s.integer({ min: 1, max: 10_000 }).default(100),
      })
      .rule((session): RuleFinding[] =>
        isAbove(session.idleTimeout, session.ttl) ? [{ path: ['idleTimeout'], rule: 'idle-within-ttl', message: 'must not be greater than ttl', value: session.idleTimeout }] : [],
      )
      .default({}),
    loginThrottle: s
      .object({
        maxFailuresPerAddress: s.integer({ min: 1, max: 1000 }).default(10),
        maxFailures: s.integer({ min: 1, max: 1_000_000 }).default(40),
        reservedForKnown: s.integer({ min: 0, max: 1_000_000 }).default(8),
        window: s.duration({ min: '1m', max: '24h' }).default('5m'),
      })
      .rule((throttle): RuleFinding[] =>
        isAbove(throttle.maxFailuresPerAddress, throttle.maxFailures) ? [{ path: ['maxFailuresPerAddress'], rule: 'address-within-page', message: 'must not be greater than maxFailures (the whole page\'s budget)', value: throttle.maxFailuresPerAddress }] : [],
      )
      .default({}),
    events: s
      .object({
        shown: s.integer({ min: 1, max: 500 }).default(50),
        backlogBytes: s.integer({ min: 4096, max: 64 * 1024 * 1024 }).default(1024 * 1024),
        maxLineBytes: s.integer({ min: 1024, max: 64 * 1024 * 1024 }).default(1024 * 1024),
      })
      .default({}),
    // The page's own /runbooks: it serves them, so the default works wherever the page is reached.
    runbookBaseUrl: s.string({ minLength: 1 }).default(runbooksPath),
    log: s.object({ level: s.string({ enum: logLevels }).default('info'), file: s.path() }).default({}),
  })
  .rule((config): RuleFinding[] => {
    const findings: RuleFinding[] = [];
    const seen = { id: new Map<string, number>(), url: new Map<string, number>(), file: new Map<string, number>() };
    (config.controllers ?? []).forEach((controller, index) => {
      if (!controller) return;
      for (const key of ['id', 'url'] as const) {
        const value = controller[key];
        if (value === undefined) continue;
        const earlier = seen[key].get(value);
        if (earlier !== undefined) findings.push({ path: ['controllers', index, key], rule: `unique-${key}`, message: `"${value}" is also controllers[${earlier}].${key}`, value });
        else seen[key].set(value, index);
      }
      if (controller.eventsFile !== undefined) {
        const earlier = seen.file.get(controller.eventsFile);
        if (earlier !== undefined) findings.push({ path: ['controllers', index, 'eventsFile'], rule: 'unique-file', message: `${controller.eventsFile} is also controllers[${earlier}].eventsFile: each controller writes its own`, value: controller.eventsFile });
        else seen.file.set(controller.eventsFile, index);
      }
    });
    const routerIds = new Map<string, number>();
    (config.routers ?? []).forEach((router, index) => {
      if (router?.id === undefined) return;
      const earlier = routerIds.get(router.id);
      if (earlier !== undefined) findings.push({ path: ['routers', index, 'id'], rule: 'unique-id', message: `"${router.id}" is also routers[${earlier}].id`, value: router.id });
      else routerIds.set(router.id, index);
    });
    const urls = [...(config.controllers ?? []).map((controller) => controller?.url), ...(config.routers ?? []).map((router) => router?.healthUrl), config.alertsDaemon?.url];
    if (urls.some((value) => value?.startsWith('https:')) && config.caBundle === undefined) {
      findings.push({ path: ['caBundle'], rule: 'required', message: 'is required: a controller, router or alerts daemon URL is https (the PEM bundle that signs their certificates)' });
    }
    if (config.auth === 'loopback-only' && config.listen?.host !== undefined && !isLoopbackHost(config.listen.host)) {
      findings.push({ path: ['auth'], rule: 'login-required', message: `cannot be loopback-only: the page listens on ${config.listen.host}, which other machines can reach; a non-loopback address requires login`, value: config.auth });
    }
    // A login on an address other machines reach sends passwords over the network: only over TLS.
    if (config.auth !== 'loopback-only' && config.listen?.host !== undefined && !isLoopbackHost(config.listen.host) && config.tls === undefined) {
      const where = config.auth === 'required' ? { path: ['auth'], value: config.auth } : { path: ['listen'], value: config.listen.host };
      findings.push({ ...where, rule: 'login-needs-tls', message: `a login on ${config.listen.host}, which other machines can reach, needs tls (cert and key): passwords are never taken in clear text` });
    }
    return findings;
  })
  // Without `auth`, the address decides: no login on loopback only, a login everywhere else.
  .transform((config) => ({ ...config, auth: config.auth ?? (isLoopbackHost(config.listen.host) ? 'loopback-only' : 'required') }));

function isAbove(a: Loose<number> | undefined, b: Loose<number> | undefined): boolean {
  return a !== undefined && b !== undefined && a > b;
}
