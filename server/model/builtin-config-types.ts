// The config types every cluster has from the start, under the ids and JSON schemas the real controller creates
// them with (openziti/ziti controller/db/migration_initialize.go): host.v1 (how a hosting tunneler dials the
// server) and intercept.v1 (what a client tunneler intercepts). They are not stored until an admin changes their
// tags, and they cannot be deleted.
import type { ConfigType } from './config-entities.ts';

const epoch = new Date(0).toISOString();
const maxUint16 = 65535;
const maxInt32 = 2147483647;

const healthCheckDefinitions = {
  duration: { type: 'string', pattern: '[0-9]+(h|m|s|ms)' },
  method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH'] },
  action: {
    type: 'object',
    additionalProperties: false,
    required: ['trigger', 'action'],
    properties: {
      trigger: { type: 'string', enum: ['fail', 'pass', 'change'] },
      consecutiveEvents: { type: 'integer', minimum: 0, maximum: maxUint16 },
      duration: { $ref: '#/definitions/duration' },
      action: { type: 'string', pattern: '(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+|send event)' },
    },
  },
  actionList: { type: 'array', items: { $ref: '#/definitions/action' }, minItems: 1, maxItems: 20 },
  portCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'address'],
    properties: {
      interval: { $ref: '#/definitions/duration' },
      timeout: { $ref: '#/definitions/duration' },
      address: { type: 'string' },
      actions: { $ref: '#/definitions/actionList' },
    },
  },
  httpCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'url'],
    properties: {
      url: { type: 'string' },
      method: { $ref: '#/definitions/method' },
      body: { type: 'string' },
      interval: { $ref: '#/definitions/duration' },
      timeout: { $ref: '#/definitions/duration' },
      actions: { $ref: '#/definitions/actionList' },
      expectStatus: { type: 'integer', minimum: 100, maximum: 599 },
      expectInBody: { type: 'string' },
    },
  },
  portCheckList: { type: 'array', items: { $ref: '#/definitions/portCheck' } },
  httpCheckList: { type: 'array', items: { $ref: '#/definitions/httpCheck' } },
};

const healthCheckProperties = {
  portChecks: { $ref: '#/definitions/portCheckList' },
  httpChecks: { $ref: '#/definitions/httpCheckList' },
};

const tunnelDefinitions = {
  dialAddress: { type: 'string', format: 'idn-hostname', not: { pattern: '^$' } },
  listenAddress: {
    type: 'string',
    format: 'idn-hostname',
    not: { pattern: '^$' },
    description:
      "idn-hostname allows ipv4 and ipv6 addresses, as well as hostnames that might happen to contain '*' and/or '/'. so idn-hostname allows every supported intercept address, although ip addresses, wildcards and cidrs are only being validated as hostnames by this format. client applications will need to look for _valid_ ips, cidrs, and wildcards when parsing intercept addresses and treat them accordingly. anything else should be interpreted as a dns label. this means e.g. that '1.2.3.4/56' should be treated as a dns label, since it is not a valid cidr",
  },
  inhabitedSet: { type: 'array', minItems: 1, uniqueItems: true },
  portNumber: { type: 'integer', minimum: 0, maximum: maxUint16 },
  portRange: {
    type: 'object',
    additionalProperties: false,
    properties: { low: { $ref: '#/definitions/portNumber' }, high: { $ref: '#/definitions/portNumber' } },
    required: ['low', 'high'],
  },
  protocolName: { type: 'string', enum: ['tcp', 'udp'] },
  timeoutSeconds: { type: 'integer', minimum: 0, maximum: maxInt32 },
  proxyType: { type: 'string', enum: ['http'], description: 'supported proxy types' },
  proxyConfiguration: {
    type: 'object',
    required: ['type', 'address'],
    properties: {
      type: { $ref: '#/definitions/proxyType', description: 'The type of the proxy being used' },
      address: { type: 'string', description: 'The address of the proxy in host:port format' },
    },
  },
  ipv4AddressTranslation: {
    type: 'object',
    additionalProperties: false,
    properties: { from: { type: 'string', format: 'ipv4' }, to: { type: 'string', format: 'ipv4' }, prefixLength: { type: 'integer', minimum: 0, maximum: 32 } },
  },
  ipv6AddressTranslation: {
    type: 'object',
    additionalProperties: false,
    properties: { from: { type: 'string', format: 'ipv6' }, to: { type: 'string', format: 'ipv6' }, prefixLength: { type: 'integer', minimum: 0, maximum: 128 } },
  },
  addressTranslation: { oneOf: [{ $ref: '#/definitions/ipv4AddressTranslation' }, { $ref: '#/definitions/ipv6AddressTranslation' }] },
};

const setOf = (ref: string, description?: string) => ({
  allOf: [{ $ref: '#/definitions/inhabitedSet' }, { items: { $ref: `#/definitions/${ref}` } }],
  ...(description ? { description } : {}),
});

const listenOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    connectTimeoutSeconds: {
      $ref: '#/definitions/timeoutSeconds',
      description: 'Timeout when making outbound connections. Defaults to 5. If both connectTimeoutSeconds and connectTimeout are specified, connectTimeout will be used.',
      deprecated: true,
    },
    connectTimeout: {
      $ref: '#/definitions/duration',
      description: "Timeout when making outbound connections. Defaults to '5s'. If both connectTimeoutSeconds and connectTimeout are specified, connectTimeout will be used.",
    },
    maxConnections: { type: 'integer', minimum: 1, description: 'defaults to 3' },
    identity: {
      type: 'string',
      description:
        "Associate the hosting terminator with the specified identity. '$tunneler_id.name' resolves to the name of the hosting tunneler's identity. '$tunneler_id.tag[tagName]' resolves to the value of the 'tagName' tag on the hosting tunneler's identity.",
    },
    bindUsingEdgeIdentity: {
      type: 'boolean',
      description: "Associate the hosting terminator with the name of the hosting tunneler's identity. Setting this to 'true' is equivalent to setting 'identiy=$tunneler_id.name'",
    },
    cost: { type: 'integer', minimum: 0, maximum: 65535, description: 'defaults to 0' },
    precedence: { type: 'string', enum: ['default', 'required', 'failed'], description: "defaults to 'default'" },
  },
};

const dialOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    identity: {
      type: 'string',
      description: "Dial a terminator with the specified identity. '$dst_protocol', '$dst_ip', '$dst_port are resolved to the corresponding value of the destination address.",
    },
    connectTimeoutSeconds: {
      $ref: '#/definitions/timeoutSeconds',
      description: 'defaults to 5 seconds if no dialOptions are defined. defaults to 15 if dialOptions are defined but connectTimeoutSeconds is not specified.',
    },
  },
};

/** `forwardX: true` needs `allowedXs`; otherwise `x` itself is required. */
const forwardedOr = (forward: string, allowed: string, fixed: string) => ({
  if: { properties: { [forward]: { const: true } }, required: [forward] },
  then: { required: [allowed] },
  else: { required: [fixed] },
});

export const hostV1ConfigTypeId = 'NH5p4FpGR';
export const interceptV1ConfigTypeId = 'g7cIWbcGg';

const hostV1Schema = {
  $id: 'http://ziti-edge.netfoundry.io/schemas/host.v1.schema.json',
  definitions: { ...healthCheckDefinitions, ...tunnelDefinitions },
  type: 'object',
  properties: {
    ...healthCheckProperties,
    protocol: { $ref: '#/definitions/protocolName', description: 'Dial the specified protocol when a ziti client connects to the service.' },
    forwardProtocol: {
      type: 'boolean',
      enum: [true],
      description: "Dial the same protocol that was intercepted at the client tunneler. 'protocol' and 'forwardProtocol' are mutually exclusive.",
    },
    allowedProtocols: setOf('protocolName', 'Only allow protocols from this set to be dialed'),
    address: { $ref: '#/definitions/dialAddress', description: 'Dial the specified ip address or hostname when a ziti client connects to the service.' },
    forwardAddress: {
      type: 'boolean',
      enum: [true],
      description: "Dial the same ip address that was intercepted at the client tunneler. 'address' and 'forwardAddress' are mutually exclusive.",
    },
    allowedAddresses: setOf('listenAddress', 'Only allow addresses from this set to be dialed'),
    forwardAddressTranslations: setOf('addressTranslation', 'Translate forwarded addresses according to this table'),
    port: { $ref: '#/definitions/portNumber', description: 'Dial the specified port when a ziti client connects to the service.' },
    forwardPort: {
      type: 'boolean',
      enum: [true],
      description: "Dial the same port that was intercepted at the client tunneler. 'port' and 'forwardPort' are mutually exclusive.",
    },
    allowedPortRanges: setOf('portRange', 'Only allow ports from this set to be dialed'),
    allowedSourceAddresses: setOf(
      'listenAddress',
      'hosting tunnelers establish local routes for the specified source addresses so binding will succeed',
    ),
    proxy: { $ref: '#/definitions/proxyConfiguration', description: 'If defined, outgoing connections will be send through this proxy server' },
    listenOptions,
  },
  additionalProperties: false,
  allOf: [forwardedOr('forwardProtocol', 'allowedProtocols', 'protocol'), forwardedOr('forwardAddress', 'allowedAddresses', 'address'), forwardedOr('forwardPort', 'allowedPortRanges', 'port')],
};

const interceptV1Schema = {
  $id: 'http://edge.openziti.org/schemas/intercept.v1.config.json',
  type: 'object',
  additionalProperties: false,
  definitions: tunnelDefinitions,
  properties: {
    dialOptions,
    protocols: setOf('protocolName'),
    addresses: setOf('listenAddress'),
    portRanges: setOf('portRange'),
    sourceIp: {
      type: 'string',
      description:
        "The source IP (and optional :port) to spoof when the connection is egressed from the hosting tunneler. '$tunneler_id.name' resolves to the name of the client tunneler's identity. '$tunneler_id.tag[tagName]' resolves to the value of the 'tagName' tag on the client tunneler's identity. '$src_ip' and '$src_port' resolve to the source IP / port of the originating client. '$dst_port' resolves to the port that the client is trying to connect.",
    },
    allowedSourceAddresses: setOf('listenAddress', 'white list of source ips/cidrs that can be intercepted. all ips can be intercepted if this is not set.'),
  },
  required: ['protocols', 'addresses', 'portRanges'],
};

/** Deep-freezes a plain JSON value, so no caller can change a built-in schema in place. */
function frozen<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) frozen(child);
    Object.freeze(value);
  }
  return value;
}

export const builtinConfigTypes: readonly ConfigType[] = frozen([
  { id: hostV1ConfigTypeId, createdAt: epoch, updatedAt: epoch, tags: {}, name: 'host.v1', schema: hostV1Schema, target: 'service' },
  { id: interceptV1ConfigTypeId, createdAt: epoch, updatedAt: epoch, tags: {}, name: 'intercept.v1', schema: interceptV1Schema, target: 'service' },
]);

const builtinById = new Map(builtinConfigTypes.map((type) => [type.id, type]));

export function builtinConfigType(id: string): ConfigType | undefined {
  return builtinById.get(id);
}

export function isBuiltinConfigType(id: string): boolean {
  return builtinById.has(id);
}
