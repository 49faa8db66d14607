// The router's `v: 3` YAML file as a schema: every section, key, default and bound of the spec's "Router
// configuration file", and the consequences it states for a missing section (reported as warnings). Real router
// files carry keys for other components, so unknown keys are warnings with a did-you-mean hint, and component
// `options` keep the keys the spec does not enumerate.

import { basename } from 'node:path';
import { formatAddress, parseAddress } from '../../common/config/address.ts';
import type { Address, HostPort, ParseResult } from '../../common/config/address.ts';
import { formatDuration } from '../../common/config/go-duration.ts';
import { s } from '../../common/config/schema.ts';
import type { Loose, RuleFinding, Schema } from '../../common/config/schema.ts';
import { resolveIdentitySource } from './identity-source.ts';
import {
  addressProtocols,
  parseBareAdvertise,
  parseCertificateFingerprint,
  parseCidr,
  parseDnsSan,
  parseEmailSan,
  parseIpSan,
  parseLinkAdvertise,
  parseResolverUrl,
  parseTunnelService,
  parseUriSan,
  sansCover,
} from './router-value-formats.ts';
import type { AddressProtocol, LinkAdvertise } from './router-value-formats.ts';

export const dialerBindings = ['proxy', 'proxy_udp', 'transport', 'transport_udp'] as const;
export const listenerBindings = ['edge', 'edge_transport', 'tunnel', 'transport', 'transport_udp', 'proxy', 'proxy_udp'] as const;
export const tunnelModes = ['host', 'tproxy', 'proxy'] as const;
export const webApiBindings = ['health-checks'] as const;

export const tproxyDefaults = { resolver: 'udp://127.0.0.1:53', dnsSvcIpRange: '100.64.0.1/10' } as const;

/** The spec's consequence of each missing optional section, reported as a warning. */
export const missingSectionConsequences = {
  dialers: 'no dialers section: the router cannot terminate services',
  edge: 'no edge section: fabric-only, no SDK connectivity and no edge functionality',
  link: 'no link section: the router neither dials nor accepts other routers',
  listeners: 'no listeners section: external on-ramp connections are not accepted',
} as const;

/** What `router run` does not do with a protocol other than tls; validate and run say it in the same words. */
export const runProtocolMessages = {
  linkBind: (protocol: string) => `protocol "${protocol}" is not supported for links; use tls:<host>:<port>`,
  ctrlEndpoint: (address: string) => `"${address}" is ignored: the control channel speaks tls only; use tls:<host>:<port>`,
} as const;

// ---- value helpers ----------------------------------------------------------------------------------------

const address = () => s.address({ protocols: addressProtocols });

/** A string checked by `parse`, reported like the kit's own scalars: type, then format, with the raw value. */
function formatted<T>(expected: string, rule: string, parse: (text: string) => ParseResult<T>): Schema<T> {
  return s
    .any()
    .rule((raw): RuleFinding[] => {
      if (typeof raw !== 'string') return [{ rule: 'type', message: `must be ${expected}, got ${describe(raw)}`, value: raw }];
      const result = parse(raw);
      return result.ok ? [] : [{ rule, message: `"${raw}": ${result.message}`, value: raw }];
    })
    .transform((raw) => {
      const result = parse(raw as string);
      if (!result.ok) throw new Error(`schema bug: transform ran on an invalid ${expected}`);
      return result.value;
    });
}

function describe(raw: unknown): string {
  if (Array.isArray(raw)) return 'a list';
  if (typeof raw === 'object' && raw !== null) return 'a map';
  if (typeof raw === 'string') return `string ${JSON.stringify(raw)}`;
  return `${typeof raw} ${String(raw)}`;
}

/** Free-form component options: a map whose keys the spec does not enumerate, kept as parsed. */
const componentOptions = () => s.object({}, { otherKeys: s.any() }).default({});

/** `[a, b]`, or a single group written as a string; default `[default]`. */
const groups = () =>
  s
    .any()
    .rule((raw): RuleFinding[] => {
      if (typeof raw === 'string') return raw === '' ? [{ rule: 'min-length', message: 'must not be empty', value: raw }] : [];
      if (!Array.isArray(raw)) return [{ rule: 'type', message: `must be a list of group names, got ${describe(raw)}`, value: raw }];
      if (raw.length === 0) return [{ rule: 'min-items', message: 'must not be empty: a link end in no group matches no other', value: raw }];
      return raw.flatMap((item, i): RuleFinding[] =>
        typeof item === 'string' && item !== '' ? [] : [{ path: [i], rule: 'type', message: `must be a group name, got ${describe(item)}`, value: item }],
      );
    })
    .transform((raw): readonly string[] => (typeof raw === 'string' ? [raw] : (raw as string[])))
    .default(['default']);

function isAbove(larger: number | undefined, smaller: number | undefined): boolean {
  return larger === undefined || smaller === undefined || larger > smaller;
}

// ---- identity ---------------------------------------------------------------------------------------------

const identitySource = s
  .string({ minLength: 1 })
  .rule((raw): RuleFinding[] => (raw === 'file:' || raw === 'pem:' ? [{ rule: 'identity-source', message: `"${raw}" names nothing`, value: raw }] : []))
  .transform((raw, ctx) => resolveIdentitySource(raw, ctx.baseDir));

export const identitySchema = s
  .object({
    cert: identitySource.describe('the client certificate for connections to controllers and routers').required(),
    key: identitySource.describe('the private key').required(),
    server_cert: identitySource,
    server_key: identitySource,
    ca: identitySource,
    alt_server_certs: s
      .array(s.object({ server_cert: identitySource.required(), server_key: identitySource.required() }, { label: 'alternate server certificate' }))
      .default([]),
  })
  .transform((identity) => ({
    cert: identity.cert,
    key: identity.key,
    server_cert: identity.server_cert ?? identity.cert,
    server_key: identity.server_key ?? identity.key,
    ...(identity.ca === undefined ? {} : { ca: identity.ca }),
    alt_server_certs: identity.alt_server_certs,
  }));

// ---- ctrl -------------------------------------------------------------------------------------------------

const heartbeatsSchema = s
  .object({
    sendInterval: s.duration({ min: '1s', max: '5m' }).default('10s'),
    checkInterval: s.duration({ min: '100ms', max: '1m' }).default('1s'),
    closeUnresponsiveTimeout: s.duration({ min: '1s', max: '1h' }).default('30s'),
  })
  .rule((hb): RuleFinding[] =>
    isAbove(hb.closeUnresponsiveTimeout, hb.sendInterval)
      ? []
      : [{ path: ['closeUnresponsiveTimeout'], rule: 'close-above-send', message: 'must be greater than sendInterval, or a healthy controller is cut off between heartbeats', value: hb.closeUnresponsiveTimeout }],
  );

// Checked by hand rather than with s.address(), so that an invalid endpoint still counts as given in the rule below.
const ctrlEndpoint = () => formatted('an address such as tls:ctrl.example.com:6262', 'address', (text) => parseAddress(text, addressProtocols));

const ctrlSchema = s
  .object({
    endpoint: ctrlEndpoint(),
    endpoints: s.array(ctrlEndpoint()),
    bind: s.string({ minLength: 1 }).describe('the local interface name or IP to dial from'),
    defaultRequestTimeout: s.duration({ min: '1ms' }).default('5s'),
    heartbeats: heartbeatsSchema.default({}),
    options: componentOptions(),
    endpointsFile: s.path().default('endpoints'),
    controllerFingerprints: s
      .array(formatted('a SHA-1 fingerprint', 'fingerprint', parseCertificateFingerprint), { minItems: 1 })
      .describe('the controller certificates this router accepts, instead of any controller SPIFFE id'),
  })
  .rule((ctrl): RuleFinding[] => {
    const listed = (ctrl.endpoints?.length ?? 0) > 0;
    if (ctrl.endpoint !== undefined && listed) {
      return [{ path: ['endpoints'], severity: 'warning', rule: 'endpoints-ignored', message: 'is ignored because endpoint is set (endpoint wins)' }];
    }
    if (ctrl.endpoint === undefined && !listed) {
      return [{ severity: 'warning', rule: 'no-endpoints', message: 'neither endpoint nor endpoints gives a controller address: the router can reach only the controllers saved in endpointsFile' }];
    }
    // `router run` dials tls: only; any other address is skipped there, so it is named here.
    const given = ctrl.endpoint === undefined ? (ctrl.endpoints ?? []).map((address, i) => ({ address, path: ['endpoints', i] })) : [{ address: ctrl.endpoint, path: ['endpoint'] }];
    return given.flatMap(({ address, path }): RuleFinding[] => {
      // An invalid endpoint stays as its raw text here; it is reported as an address error already.
      if (typeof address !== 'object' || address.protocol === 'tls') return [];
      const text = formatAddress(address as Address<AddressProtocol>);
      return [{ path, severity: 'warning', rule: 'ctrl-not-tls', message: runProtocolMessages.ctrlEndpoint(text), value: text }];
    });
  })
  .transform((ctrl) => ({
    endpoints: ctrl.endpoint === undefined ? (ctrl.endpoints ?? []) : [ctrl.endpoint],
    ...(ctrl.bind === undefined ? {} : { bind: ctrl.bind }),
    defaultRequestTimeout: ctrl.defaultRequestTimeout,
    heartbeats: ctrl.heartbeats,
    options: ctrl.options,
    endpointsFile: ctrl.endpointsFile,
    ...(ctrl.controllerFingerprints === undefined ? {} : { controllerFingerprints: ctrl.controllerFingerprints }),
  }));

// ---- dialers ----------------------------------------------------------------------------------------------

const dialerSchema = s.object({ options: s.object({ mtu: s.integer({ min: 1 }) }, { otherKeys: s.any() }).default({}) });

// An unknown dialer binding (real files list `udp`) is dropped with a warning, as OpenZiti ignores it.
const dialersSchema = s.array(
  s.tagged('binding', { proxy: dialerSchema, proxy_udp: dialerSchema, transport: dialerSchema, transport_udp: dialerSchema }, { unknownTag: 'warning', label: 'dialer' }),
);

// ---- edge -------------------------------------------------------------------------------------------------

const csrSchema = s
  .object({
    country: s.string({ pattern: /^[A-Za-z]{2}$/, patternMessage: 'must be a two-letter country code such as US' }),
    province: s.string(),
    locality: s.string(),
    organization: s.string(),
    organizationalUnit: s.string(),
    sans: s
      .object({
        dns: s.array(formatted('a DNS name', 'san', parseDnsSan)).default([]),
        ip: s.array(formatted('an IP address', 'san', parseIpSan)).default([]),
        email: s.array(formatted('an e-mail address', 'san', parseEmailSan)).default([]),
        uri: s.array(formatted('a URI', 'san', parseUriSan)).default([]),
      })
      .default({}),
  })
  .rule((csr): RuleFinding[] => {
    const sans = csr.sans;
    if (sans === undefined) return [];
    const count = (sans.dns?.length ?? 0) + (sans.ip?.length ?? 0) + (sans.email?.length ?? 0) + (sans.uri?.length ?? 0);
    return count > 0 ? [] : [{ path: ['sans'], severity: 'warning', rule: 'no-sans', message: 'no SANs: at least one valid SAN is needed to accept SDK or router connections' }];
  });

const edgeSchema = (file: string) =>
  s
    .object({
      db: s.path().default(`${basename(file)}.proto.gzip`),
      dbSaveIntervalSeconds: s.integer({ min: 1 }).default(30),
      csr: csrSchema,
    })
    .rule((edge): RuleFinding[] =>
      edge.csr === undefined ? [{ path: ['csr'], severity: 'warning', rule: 'no-csr', message: 'no edge.csr: the router cannot enroll or renew enrollments' }] : [],
    );

// ---- forwarder, health checks, metrics --------------------------------------------------------------------

const forwarderSchema = s.object({
  faultTxInterval: s.integer({ min: 0 }).default(15000),
  idleCircuitTimeout: s.integer({ min: 1 }).default(60000),
  idleTxInterval: s.integer({ min: 0 }).default(60000),
  linkDialQueueLength: s.integer({ min: 1, max: 10000 }).default(1000),
  linkDialWorkerCount: s.integer({ min: 1, max: 10000 }).default(32),
  rateLimitedQueueLength: s.integer({ min: 1, max: 50000 }).default(5000),
  rateLimitedWorkerCount: s.integer({ min: 1, max: 10000 }).default(5),
  xgressCloseCheckInterval: s.integer({ min: 1 }).default(5000),
  xgressDialDwellTime: s.integer({ min: 0 }).default(0),
  xgressDialQueueLength: s.integer({ min: 1, max: 10000 }).default(1000),
  xgressDialWorkerCount: s.integer({ min: 1, max: 10000 }).default(128),
  latencyProbeInterval: s.integer({ min: 0 }),
  // edgeward: caps on concurrent circuits (router/circuits/forwarder.ts).
  maxCircuits: s.integer({ min: 1, max: 1_000_000 }).default(10_000),
  maxCircuitsPerIdentity: s.integer({ min: 1, max: 1_000_000 }).default(1_000),
});

const healthChecksSchema = s.object({
  ctrlPingCheck: s
    .object({
      interval: s.duration({ min: '1ms' }).default('30s'),
      timeout: s.duration({ min: '1ms' }).default('15s'),
      initialDelay: s.duration({ min: 0 }).default('15s'),
    })
    .default({}),
  linkCheck: s
    .object({
      interval: s.duration({ min: '1ms' }).default('5s'),
      initialDelay: s.duration({ min: 0 }).default('1s'),
      minLinks: s.integer({ min: 0 }).default(0),
    })
    .default({}),
});

const metricsSchema = s
  .object({
    reportInterval: s.duration({ min: '1ms' }).default('1m'),
    messageQueueSize: s.integer({ min: 1 }).default(10),
    intervalAgeThreshold: s.duration({ min: 0 }).default('80s'),
  })
  // A message is held until intervalAgeThreshold old, but pushed out by the messageQueueSize-th newer one, which
  // comes messageQueueSize × reportInterval after it: with a threshold that long, no message is ever sent.
  .rule((metrics): RuleFinding[] => {
    const { reportInterval, messageQueueSize, intervalAgeThreshold } = metrics;
    if (reportInterval === undefined || messageQueueSize === undefined || intervalAgeThreshold === undefined) return [];
    const held = messageQueueSize * reportInterval;
    return intervalAgeThreshold < held
      ? []
      : [
          {
            path: ['intervalAgeThreshold'],
            severity: 'warning',
            rule: 'metrics-never-sent',
            message: `no metrics message is ever sent: each is held until ${formatDuration(intervalAgeThreshold)} old, but the queue of ${messageQueueSize} drops it after ${formatDuration(held)} (messageQueueSize × reportInterval)`,
            value: intervalAgeThreshold,
          },
        ];
  });

// ---- link -------------------------------------------------------------------------------------------------

const linkListenerSchema = s
  .object(
    {
      binding: s.string({ enum: ['transport'] }).describe('only transport is supported').required(),
      bind: address().describe('the listen address').required(),
      advertise: formatted('an address such as tls:router1.example.com:6000', 'address', parseLinkAdvertise).describe('the address other routers dial').required(),
      groups: groups(),
      options: componentOptions(),
    },
    { label: 'link listener' },
  )
  // router/links listens on tls: only and refuses to start otherwise: an error here too.
  .rule((listener): RuleFinding[] =>
    listener.bind?.protocol === undefined || listener.bind.protocol === 'tls'
      ? []
      : [{ path: ['bind'], rule: 'link-not-tls', message: runProtocolMessages.linkBind(listener.bind.protocol), value: formatAddress(listener.bind as Address<AddressProtocol>) }],
  )
  .transform((listener) => ({ ...listener, advertise: withProtocol(listener.advertise, listener.bind.protocol) }));

function withProtocol(advertise: LinkAdvertise, fallback: AddressProtocol): HostPort & { protocol: AddressProtocol } {
  return { protocol: advertise.protocol ?? fallback, host: advertise.host, port: advertise.port };
}

export const backoffBounds = { min: '10ms', max: '24h', factorMin: 1, factorMax: 100 } as const;

function backoffSchema(minRetryInterval: string, maxRetryInterval: string, retryBackoffFactor: number) {
  const interval = () => s.duration({ min: backoffBounds.min, max: backoffBounds.max });
  return s
    .object({
      minRetryInterval: interval().default(minRetryInterval),
      maxRetryInterval: interval().default(maxRetryInterval),
      retryBackoffFactor: s.number({ min: backoffBounds.factorMin, max: backoffBounds.factorMax }).default(retryBackoffFactor),
    })
    .rule((backoff): RuleFinding[] =>
      backoff.minRetryInterval === undefined || backoff.maxRetryInterval === undefined || backoff.minRetryInterval <= backoff.maxRetryInterval
        ? []
        : [
            {
              path: ['minRetryInterval'],
              rule: 'min-not-above-max',
              message: `must not be above maxRetryInterval: ${formatDuration(backoff.minRetryInterval)} > ${formatDuration(backoff.maxRetryInterval)}`,
              value: backoff.minRetryInterval,
            },
          ],
    )
    .default({});
}

const linkDialerSchema = s.object(
  {
    binding: s.string({ enum: ['transport'] }).describe('only transport is supported').required(),
    split: s.boolean().default(true),
    bind: s.string({ minLength: 1 }),
    groups: groups(),
    options: componentOptions(),
    healthyDialBackoff: backoffSchema('5s', '5m', 1.5),
    unhealthyDialBackoff: backoffSchema('1m', '1h', 10),
  },
  { label: 'link dialer' },
);

const linkSchema = s.object({
  listeners: s.array(linkListenerSchema).default([]),
  dialers: s.array(linkDialerSchema).default([]),
});

// ---- listeners --------------------------------------------------------------------------------------------

const bareAdvertise = () => formatted('an address such as router1.example.com:3022', 'address', parseBareAdvertise);

function boundListenerSchema(binding: string) {
  return s
    .object(
      {
        bind: address().describe('the listen address, also written as "address"').required(),
        advertise: bareAdvertise(),
        options: s.object({ advertise: bareAdvertise() }, { otherKeys: s.any() }).default({}),
      },
      { aliases: { address: 'bind' } },
    )
    .rule((listener): RuleFinding[] => {
      const inOptions = listener.options?.advertise;
      if (listener.advertise !== undefined && inOptions !== undefined) {
        return [{ path: ['options', 'advertise'], rule: 'advertise-twice', message: 'advertise is set both here and on the listener; set only one' }];
      }
      if (binding === 'edge' && listener.advertise === undefined && inOptions === undefined) {
        return [{ path: ['options', 'advertise'], severity: 'warning', rule: 'no-advertise', message: 'no advertise address (<host>:<port>): SDKs are not told where to reach this edge listener' }];
      }
      return [];
    })
    .transform((listener) => {
      const { advertise: inOptions, ...options } = listener.options;
      const advertise = listener.advertise ?? inOptions;
      return { bind: listener.bind, ...(advertise === undefined ? {} : { advertise }), options };
    });
}

const tunnelOptionsSchema = s
  .object(
    {
      mode: s.string({ enum: tunnelModes }).default('tproxy'),
      resolver: formatted('a URL such as udp://127.0.0.1:53', 'resolver', parseResolverUrl),
      dnsSvcIpRange: formatted('a CIDR range such as 100.64.0.1/10', 'cidr', parseCidr),
      services: s.array(formatted('<service>:<port>', 'tunnel-service', parseTunnelService)),
    },
    { otherKeys: s.any() },
  )
  .rule((options): RuleFinding[] => {
    const findings: RuleFinding[] = [];
    const ignored = (key: string, mode: string): RuleFinding => ({ path: [key], severity: 'warning', rule: 'ignored-in-mode', message: `is used only in ${mode} mode; ignored in ${options.mode} mode` });
    if (options.mode !== undefined && options.mode !== 'tproxy') {
      if (options.resolver !== undefined) findings.push(ignored('resolver', 'tproxy'));
      if (options.dnsSvcIpRange !== undefined) findings.push(ignored('dnsSvcIpRange', 'tproxy'));
    }
    if (options.mode !== undefined && options.mode !== 'proxy' && options.services !== undefined) findings.push(ignored('services', 'proxy'));
    if (options.mode === 'proxy' && (options.services === undefined || options.services.length === 0)) {
      findings.push({ severity: 'warning', rule: 'no-services', message: 'proxy mode with no services: the tunnel listens for nothing' });
    }
    return findings;
  })
  .transform(({ mode, resolver, dnsSvcIpRange, services, ...rest }) => ({
    mode,
    ...(mode === 'tproxy' ? { resolver: resolver ?? tproxyDefaults.resolver, dnsSvcIpRange: dnsSvcIpRange ?? tproxyDefaults.dnsSvcIpRange } : {}),
    ...(mode === 'proxy' ? { services: services ?? [] } : {}),
    ...rest,
  }));

const listenerSchema = s.tagged(
  'binding',
  {
    edge: boundListenerSchema('edge'),
    edge_transport: boundListenerSchema('edge_transport'),
    tunnel: s.object({ options: tunnelOptionsSchema.default({}) }),
    transport: boundListenerSchema('transport'),
    transport_udp: boundListenerSchema('transport_udp'),
    proxy: boundListenerSchema('proxy'),
    proxy_udp: boundListenerSchema('proxy_udp'),
  },
  { label: 'listener' },
);

// ---- trace, transport, profile, web -----------------------------------------------------------------------

const profileSchema = s.object({
  cpu: s.object({ path: s.path().describe('the CPU profile output path').required() }),
  memory: s.object({ path: s.path().describe('the memory profile output path').required(), intervalMs: s.integer({ min: 1 }).default(15000) }),
});

const webSchema = s.object(
  {
    name: s.string({ minLength: 1 }).required(),
    bindPoints: s
      .array(
        s.object({
          interface: s.hostPort().describe('the host:port to listen on').required(),
          address: s.hostPort().describe('the host:port clients use').required(),
        }),
        { minItems: 1 },
      )
      .required(),
    identity: identitySchema,
    options: componentOptions(),
    apis: s.array(s.object({ binding: s.string({ enum: webApiBindings }).required(), options: s.object({}).default({}) }), { minItems: 1 }).required(),
  },
  { label: 'web listener' },
);

// ---- the file ---------------------------------------------------------------------------------------------

function sectionsSchema(file: string) {
  return s.object({
    v: s.integer({ enum: [3] }).describe('the config file version, the integer 3').required(),
    identity: identitySchema.required(),
    ctrl: ctrlSchema.required(),
    dialers: dialersSchema,
    edge: edgeSchema(file),
    forwarder: forwarderSchema.default({}),
    healthChecks: healthChecksSchema.default({}),
    link: linkSchema,
    listeners: s.array(listenerSchema),
    metrics: metricsSchema.default({}),
    trace: s.object({ path: s.path().describe('the file receiving decoded messages').required() }),
    transport: s.object({}, { otherKeys: s.any() }),
    profile: profileSchema,
    web: s.array(webSchema, { minItems: 1 }),
  });
}

type Sections = Loose<ReturnType<typeof sectionsSchema> extends Schema<infer T, 'optional' | 'present'> ? T : never>;

/** Consequences of missing sections, the edge listener an edge section needs, and advertise addresses the CSR's SANs must cover. */
function relations(config: Sections): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const absent = (name: keyof typeof missingSectionConsequences, present: boolean) => {
    if (!present) findings.push({ path: [name], severity: 'warning', rule: 'missing-section', message: missingSectionConsequences[name] });
  };
  absent('dialers', config.dialers !== undefined && config.dialers.length > 0);
  absent('edge', config.edge !== undefined);
  absent('link', config.link !== undefined);
  absent('listeners', config.listeners !== undefined && config.listeners.length > 0);

  const forwarder = config.forwarder;
  if (typeof forwarder?.maxCircuits === 'number' && typeof forwarder.maxCircuitsPerIdentity === 'number' && forwarder.maxCircuitsPerIdentity > forwarder.maxCircuits) {
    findings.push({
      path: ['forwarder', 'maxCircuitsPerIdentity'],
      severity: 'warning',
      rule: 'per-identity-above-max',
      message: `${forwarder.maxCircuitsPerIdentity} is above forwarder.maxCircuits (${forwarder.maxCircuits}): one identity can still hold at most maxCircuits circuits`,
      value: forwarder.maxCircuitsPerIdentity,
    });
  }

  const listeners = config.listeners ?? [];
  if (config.edge !== undefined && !listeners.some((listener) => listener?.binding === 'edge')) {
    findings.push({
      path: ['edge'],
      rule: 'edge-listener-required',
      message: 'an edge section needs a listener with binding "edge" and an address (listeners: [{binding: edge, address: tls:0.0.0.0:3022}]) for SDKs to connect to',
    });
  }

  const sans = config.edge?.csr?.sans;
  if (sans?.dns !== undefined && sans.ip !== undefined && sans.dns.length + sans.ip.length > 0) {
    const cover = { dns: sans.dns.filter(isString), ip: sans.ip.filter(isString) };
    const check = (path: (string | number)[], host: string | undefined) => {
      if (host !== undefined && !isWildcardHost(host) && !sansCover(cover, host)) {
        findings.push({ path, severity: 'warning', rule: 'advertise-not-in-sans', message: `host "${host}" is not among edge.csr.sans dns/ip: the enrolled certificate will not be valid for it`, value: host });
      }
    };
    listeners.forEach((listener, i) => {
      if (listener?.binding === 'edge' && 'advertise' in listener) check(['listeners', i, 'advertise'], (listener.advertise as Loose<HostPort> | undefined)?.host);
    });
    config.link?.listeners?.forEach((listener, i) => check(['link', 'listeners', i, 'advertise'], listener?.advertise?.host));
  }
  return findings;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** The whole file's schema; `file` (absolute) names the default `edge.db`, `<file>.proto.gzip`. */
export function routerSchema(file: string) {
  return sectionsSchema(file).rule(relations);
}
