// Which local port each service gets in proxy mode: the one `--proxy service:port` names, else the first port of the
// service's `intercept.v1` config (its first port range's low end). Pure: text and service data in, ports out.
import type { EdgeService } from '../sdk/controller-client.ts';

export class ProxySpecError extends Error {}

/** `--proxy` values (`service:port`, the service name may itself hold colons) → port by service name. */
export function parseProxySpecs(values: readonly string[]): Map<string, number> {
  const proxies = new Map<string, number>();
  for (const value of values) {
    const at = value.lastIndexOf(':');
    const name = at > 0 ? value.slice(0, at) : '';
    const portText = at > 0 ? value.slice(at + 1) : '';
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!name || !(port >= 1 && port <= 65_535)) throw new ProxySpecError(`--proxy ${JSON.stringify(value)}: expected service:port with a port from 1 to 65535`);
    if (proxies.has(name)) throw new ProxySpecError(`--proxy ${JSON.stringify(value)}: service ${JSON.stringify(name)} is named twice`);
    proxies.set(name, port);
  }
  return proxies;
}

export type PortChoice = { readonly port: number; readonly source: '--proxy' | 'intercept.v1' } | { readonly port: undefined; readonly reason: string };

/** The local port of a dialable service, or why it has none. */
export function choosePort(service: EdgeService, proxies: ReadonlyMap<string, number>): PortChoice {
  const named = proxies.get(service.name);
  if (named !== undefined) return { port: named, source: '--proxy' };
  const intercept = service.config['intercept.v1'] as { portRanges?: Array<{ low?: unknown }> } | undefined;
  const low = intercept?.portRanges?.[0]?.low;
  if (typeof low === 'number' && Number.isInteger(low) && low >= 1 && low <= 65_535) return { port: low, source: 'intercept.v1' };
  return { port: undefined, reason: intercept ? 'its intercept.v1 config names no port' : 'no --proxy port and no intercept.v1 config' };
}

/** The services proxy mode offers: those the identity may dial, only the ones `--proxy` names when it names any. */
export function servicesToOffer(services: readonly EdgeService[], proxies: ReadonlyMap<string, number>): EdgeService[] {
  return services.filter((service) => service.permissions.includes('Dial') && (proxies.size === 0 || proxies.has(service.name)));
}
