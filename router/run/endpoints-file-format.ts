// The endpoints file (ctrl.endpointsFile): the controller addresses a router learned, kept for its next start.
// YAML with `endpoints: [<tls:host:port>...]` and `controllers: [{id, endpoints: [{address}]}]`, as OpenZiti writes
// it. Reading is forgiving (the key `endpoints` matches case-insensitively; `controllers` is optional; a bad address
// is dropped and reported); an empty or unusable file means "fall back to the config". Pure: text in, text out.

import { parse, stringify } from 'yaml';
import { formatAddress, parseAddress } from '../../common/config/address.ts';
import type { ControllerEndpoint } from '../../common/control-channel/control-messages.ts';

export interface EndpointsFileContent {
  /** Addresses to dial, in order, normalised to `tls:<host>:<port>`. */
  readonly endpoints: readonly string[];
  readonly controllers: readonly { readonly id: string; readonly endpoints: readonly { readonly address: string }[] }[];
}

export interface ParsedEndpointsFile {
  readonly content: EndpointsFileContent;
  /** What was wrong and ignored; the file is still used if any endpoint remains. */
  readonly problems: readonly string[];
}

/** The router dials controllers over TLS only. */
export function normaliseControlAddress(text: string): string | undefined {
  const parsed = parseAddress(text.trim(), ['tls'] as const);
  return parsed.ok ? formatAddress(parsed.value) : undefined;
}

export function parseEndpointsFile(text: string): ParsedEndpointsFile {
  const problems: string[] = [];
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    return { content: { endpoints: [], controllers: [] }, problems: [`not YAML: ${(error as Error).message}`] };
  }
  if (data === null || data === undefined) return { content: { endpoints: [], controllers: [] }, problems: ['the file is empty'] };
  if (typeof data !== 'object' || Array.isArray(data)) return { content: { endpoints: [], controllers: [] }, problems: ['expected a map with an "endpoints" list'] };
  const record = data as Record<string, unknown>;
  const key = (name: string) => Object.keys(record).find((candidate) => candidate.toLowerCase() === name);

  const endpoints: string[] = [];
  const endpointsKey = key('endpoints');
  const rawEndpoints = endpointsKey === undefined ? [] : record[endpointsKey];
  if (!Array.isArray(rawEndpoints)) problems.push('"endpoints" is not a list');
  else {
    for (const item of rawEndpoints) {
      const address = typeof item === 'string' ? normaliseControlAddress(item) : undefined;
      if (address === undefined) problems.push(`ignored endpoint ${JSON.stringify(item)}: expected tls:<host>:<port>`);
      else if (!endpoints.includes(address)) endpoints.push(address);
    }
  }

  const controllers: { id: string; endpoints: { address: string }[] }[] = [];
  const controllersKey = key('controllers');
  const rawControllers = controllersKey === undefined ? [] : record[controllersKey];
  if (Array.isArray(rawControllers)) {
    for (const item of rawControllers) {
      const entry = item as { id?: unknown; endpoints?: unknown } | null;
      if (!entry || typeof entry.id !== 'string' || !Array.isArray(entry.endpoints)) {
        problems.push(`ignored controller entry ${JSON.stringify(item)}`);
        continue;
      }
      const addresses = entry.endpoints
        .map((endpoint) => (endpoint && typeof (endpoint as { address?: unknown }).address === 'string' ? normaliseControlAddress((endpoint as { address: string }).address) : undefined))
        .filter((address): address is string => address !== undefined);
      controllers.push({ id: entry.id, endpoints: addresses.map((address) => ({ address })) });
    }
  } else if (rawControllers !== null && rawControllers !== undefined) problems.push('"controllers" is not a list');

  return { content: { endpoints, controllers }, problems };
}

/** The file's content for the cluster members a controller announced (order kept, duplicates dropped). */
export function contentFromMembers(members: readonly ControllerEndpoint[]): EndpointsFileContent {
  const endpoints: string[] = [];
  const controllers: { id: string; endpoints: { address: string }[] }[] = [];
  for (const member of members) {
    const address = normaliseControlAddress(member.address);
    if (address === undefined) continue;
    if (!endpoints.includes(address)) endpoints.push(address);
    const existing = controllers.find((controller) => controller.id === member.id);
    if (existing) {
      if (!existing.endpoints.some((endpoint) => endpoint.address === address)) existing.endpoints.push({ address });
    } else controllers.push({ id: member.id, endpoints: [{ address }] });
  }
  return { endpoints, controllers };
}

/** The file's content for addresses alone (enrollment knows the cluster's addresses, not the controllers' ids). */
export function contentFromAddresses(addresses: readonly string[]): EndpointsFileContent {
  const endpoints = [...new Set(addresses.map(normaliseControlAddress).filter((address): address is string => address !== undefined))];
  return { endpoints, controllers: [] };
}

export function formatEndpointsFile(content: EndpointsFileContent): string {
  return stringify({
    endpoints: [...content.endpoints],
    controllers: content.controllers.map((controller) => ({ id: controller.id, endpoints: controller.endpoints.map((endpoint) => ({ address: endpoint.address })) })),
  });
}

/** Whether two contents name the same endpoints and controllers (the file is rewritten only when they differ). */
export function sameEndpoints(a: EndpointsFileContent, b: EndpointsFileContent): boolean {
  return formatEndpointsFile(a) === formatEndpointsFile(b);
}
