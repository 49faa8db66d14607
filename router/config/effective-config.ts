// The effective router configuration: the parsed config, defaults filled in, written back as a v3 YAML file in the
// spec's own notation (durations such as `15s`, `1m`, `80s`; addresses as `tls:<host>:<port>`). Parsing the output
// gives the same config again, so it can be saved and used as the router's file.

import { stringify } from 'yaml';
import { formatAddress, formatHostPort } from '../../common/config/address.ts';
import type { HostPort } from '../../common/config/address.ts';
import { formatDuration } from '../../common/config/go-duration.ts';
import { formatTunnelService } from './router-value-formats.ts';
import type {
  CtrlConfig,
  DialBackoffConfig,
  EdgeConfig,
  HealthChecksConfig,
  IdentityConfig,
  LinkConfig,
  ListenerConfig,
  RouterConfig,
  WebConfig,
} from './router-config.ts';

type Doc = Record<string, unknown>;

const UNITS: readonly (readonly [string, number])[] = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
];

/** A duration in the largest single unit that states it exactly, as the spec writes them: `80s`, `5m`, `1h`, `10ms`. */
export function formatSpecDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const [unit, size] of UNITS) if (Number.isInteger(ms / size)) return `${ms / size}${unit}`;
  return formatDuration(ms); // below a millisecond
}

/** The config as a YAML document, sections in the spec's order with `v` first; absent optional sections stay absent. */
export function renderEffectiveConfig(config: RouterConfig): string {
  return stringify(effectiveConfigDocument(config), { lineWidth: 0, aliasDuplicateObjects: false });
}

/** The same document as plain data (what `router validate --effective --json` prints as JSON). */
export function effectiveConfigDocument(config: RouterConfig): Record<string, unknown> {
  const doc: Doc = { v: config.v, identity: identity(config.identity), ctrl: ctrl(config.ctrl) };
  if (config.dialers) doc.dialers = config.dialers.map((dialer) => ({ binding: dialer.binding, options: { ...dialer.options } }));
  if (config.edge) doc.edge = edge(config.edge);
  doc.forwarder = { ...config.forwarder };
  doc.healthChecks = healthChecks(config.healthChecks);
  if (config.link) doc.link = link(config.link);
  if (config.listeners) doc.listeners = config.listeners.map(listener);
  doc.metrics = {
    reportInterval: formatSpecDuration(config.metrics.reportInterval),
    messageQueueSize: config.metrics.messageQueueSize,
    intervalAgeThreshold: formatSpecDuration(config.metrics.intervalAgeThreshold),
  };
  if (config.trace) doc.trace = { path: config.trace.path };
  if (config.transport) doc.transport = { ...config.transport };
  if (config.profile) doc.profile = { ...config.profile };
  if (config.web) doc.web = config.web.map(web);
  return doc;
}

function identity(id: IdentityConfig): Doc {
  return {
    cert: id.cert,
    key: id.key,
    server_cert: id.server_cert,
    server_key: id.server_key,
    ...(id.ca === undefined ? {} : { ca: id.ca }),
    alt_server_certs: id.alt_server_certs.map((alt) => ({ server_cert: alt.server_cert, server_key: alt.server_key })),
  };
}

function ctrl(c: CtrlConfig): Doc {
  return {
    endpoints: c.endpoints.map(formatAddress),
    ...(c.bind === undefined ? {} : { bind: c.bind }),
    defaultRequestTimeout: formatSpecDuration(c.defaultRequestTimeout),
    heartbeats: {
      sendInterval: formatSpecDuration(c.heartbeats.sendInterval),
      checkInterval: formatSpecDuration(c.heartbeats.checkInterval),
      closeUnresponsiveTimeout: formatSpecDuration(c.heartbeats.closeUnresponsiveTimeout),
    },
    options: { ...c.options },
    endpointsFile: c.endpointsFile,
  };
}

function edge(e: EdgeConfig): Doc {
  return {
    db: e.db,
    dbSaveIntervalSeconds: e.dbSaveIntervalSeconds,
    ...(e.csr === undefined ? {} : { csr: { ...e.csr, sans: { dns: [...e.csr.sans.dns], ip: [...e.csr.sans.ip], email: [...e.csr.sans.email], uri: [...e.csr.sans.uri] } } }),
  };
}

function healthChecks(h: HealthChecksConfig): Doc {
  return {
    ctrlPingCheck: {
      interval: formatSpecDuration(h.ctrlPingCheck.interval),
      timeout: formatSpecDuration(h.ctrlPingCheck.timeout),
      initialDelay: formatSpecDuration(h.ctrlPingCheck.initialDelay),
    },
    linkCheck: {
      interval: formatSpecDuration(h.linkCheck.interval),
      initialDelay: formatSpecDuration(h.linkCheck.initialDelay),
      minLinks: h.linkCheck.minLinks,
    },
  };
}

function backoff(b: DialBackoffConfig): Doc {
  return { minRetryInterval: formatSpecDuration(b.minRetryInterval), maxRetryInterval: formatSpecDuration(b.maxRetryInterval), retryBackoffFactor: b.retryBackoffFactor };
}

function link(l: LinkConfig): Doc {
  return {
    listeners: l.listeners.map((listener) => ({
      binding: listener.binding,
      bind: formatAddress(listener.bind),
      advertise: formatAddress(listener.advertise),
      groups: [...listener.groups],
      options: { ...listener.options },
    })),
    dialers: l.dialers.map((dialer) => ({
      binding: dialer.binding,
      split: dialer.split,
      ...(dialer.bind === undefined ? {} : { bind: dialer.bind }),
      groups: [...dialer.groups],
      options: { ...dialer.options },
      healthyDialBackoff: backoff(dialer.healthyDialBackoff),
      unhealthyDialBackoff: backoff(dialer.unhealthyDialBackoff),
    })),
  };
}

function listener(l: ListenerConfig): Doc {
  if (l.binding === 'tunnel') {
    const { services, ...options } = l.options;
    return { binding: l.binding, options: { ...options, ...(services === undefined ? {} : { services: services.map(formatTunnelService) }) } };
  }
  return {
    binding: l.binding,
    bind: formatAddress(l.bind),
    ...(l.advertise === undefined ? {} : { advertise: formatHostPort(l.advertise) }),
    options: { ...l.options },
  };
}

function web(w: WebConfig): Doc {
  const hostPort = (value: HostPort) => formatHostPort(value);
  return {
    name: w.name,
    bindPoints: w.bindPoints.map((point) => ({ interface: hostPort(point.interface), address: hostPort(point.address) })),
    ...(w.identity === undefined ? {} : { identity: identity(w.identity) }),
    options: { ...w.options },
    apis: w.apis.map((api) => ({ binding: api.binding, options: { ...api.options } })),
  };
}
