// The DNS names and IP addresses a router's server certificate may carry. The edge-router record has no field for
// them (nor has OpenZiti's): they come from the router's CSR, and the controller grants them only when every one is
// a name a router may hold. Refused: a wildcard; an address no host is reached at (unspecified, multicast,
// reserved); a name that belongs to a controller, because clients trust the same CA and would take a router holding
// it for that controller (a name on a controller certificate or under its wildcard, a controller's control address,
// a controller's web address); more than maxRouterServerNames names. Loopback names (localhost, *.localhost,
// 127.0.0.0/8, ::1) are exempt from the controllers' names and from other routers' (router-commands.ts): they only
// ever reach the host the client runs on, where routers and controllers commonly share them. Pure.
import { isIP } from 'node:net';
import { requireDnsName, requireIpAddress } from './name-rules.ts';
import { PemMemo } from './pem-memo.ts';
import type { RequestedNames } from './requested-names.ts';
import { parseCertificate, x509 } from './x509-runtime.ts';

/** More names than any router needs; each is checked against every controller and router name. */
export const maxRouterServerNames = 32;

/** What controllers are known by, as the running controller sees them. */
export interface ControllerNameSources {
  /** PEM certificates controllers present: this controller's identity and web certificates, and its peers'. */
  readonly certificates: readonly string[];
  /** Control addresses (`tls:<host>:<port>`) and web addresses (`https://<host>:<port>`) of the cluster's controllers. */
  readonly addresses: readonly string[];
}

/** Each controller name (a `DNS:`/`IP:` key) with where it was found; wildcard suffixes (`.example.com`) apart. */
export interface ControllerNames {
  readonly exact: ReadonlyMap<string, string>;
  readonly wildcardSuffixes: ReadonlyMap<string, string>;
}

export type RouterNamesCheck =
  | {
      readonly ok: true;
      readonly dnsNames: readonly string[];
      readonly ipAddresses: readonly string[];
      /** The granted names that no other router may hold (loopback left out), as `DNS:<name>` / `IP:<address>`. */
      readonly claimed: readonly string[];
    }
  | { readonly ok: false; readonly name: string; readonly reason: string };

/** A controller certificate's DNS and IP names, by its PEM text: every enrollment asks for the same few certificates'
 * names. An unparsable certificate has none (it names nothing a router could be refused for). */
const certificateNames = new PemMemo<readonly { readonly type: string; readonly value: string }[]>(64);

function namesOnCertificate(pem: string): readonly { readonly type: string; readonly value: string }[] {
  let certificate: x509.X509Certificate;
  try {
    certificate = parseCertificate(pem, 'controller certificate');
  } catch {
    return [];
  }
  const san = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  return (san?.names.items ?? []).filter((name) => name.type === 'ip' || name.type === 'dns').map((name) => ({ type: name.type, value: name.value }));
}

export function controllerNamesOf(sources: ControllerNameSources): ControllerNames {
  const exact = new Map<string, string>();
  const wildcardSuffixes = new Map<string, string>();
  const add = (key: string | undefined, where: string) => {
    if (key !== undefined && !exact.has(key)) exact.set(key, where);
  };
  for (const pem of sources.certificates) {
    for (const name of certificateNames.get(pem, namesOnCertificate)) {
      if (name.type === 'ip') add(ipKey(name.value), 'on a controller certificate');
      if (name.type !== 'dns') continue;
      const dns = name.value.toLowerCase();
      if (dns.startsWith('*.')) {
        if (!wildcardSuffixes.has(dns.slice(1))) wildcardSuffixes.set(dns.slice(1), `under the controller certificate name ${dns}`);
      } else add(`DNS:${dns}`, 'on a controller certificate');
    }
  }
  for (const address of sources.addresses) {
    const host = hostOfAddress(address);
    if (host === undefined) continue;
    const where = /^tls:/i.test(address.trim()) ? "a controller's control address" : "a controller's web address";
    add(isIP(host) ? ipKey(host) : `DNS:${host.toLowerCase().replace(/\.$/, '')}`, where);
  }
  return { exact, wildcardSuffixes };
}

/** Grants the requested names, or names the first one refused and why. */
export function checkRouterServerNames(requested: RequestedNames, controllers: ControllerNames): RouterNamesCheck {
  const total = new Set(requested.dnsNames.map((name) => name.toLowerCase())).size + new Set(requested.ipAddresses).size;
  if (total > maxRouterServerNames) {
    return { ok: false, name: `${total} names`, reason: `the certificate request asks for ${total} names; a router's server certificate may carry at most ${maxRouterServerNames}` };
  }
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  const claimed: string[] = [];
  for (const requestedName of requested.dnsNames) {
    let name: string;
    try {
      name = requireDnsName(requestedName);
    } catch (error) {
      return { ok: false, name: requestedName, reason: (error as Error).message };
    }
    if (name.startsWith('*.')) return { ok: false, name, reason: `"${name}" is a wildcard: a router's server certificate names its own host only` };
    if (dnsNames.includes(name)) continue;
    dnsNames.push(name);
    if (isLoopbackDns(name)) continue;
    const key = `DNS:${name}`;
    const owner = controllers.exact.get(key) ?? wildcardOwner(name, controllers);
    if (owner !== undefined) return { ok: false, name, reason: `"${name}" belongs to a controller (${owner})` };
    claimed.push(key);
  }
  for (const requestedAddress of requested.ipAddresses) {
    let address: string;
    try {
      address = requireIpAddress(requestedAddress);
    } catch (error) {
      return { ok: false, name: requestedAddress, reason: (error as Error).message };
    }
    const key = ipKey(address)!;
    const unusable = unusableAddress(key);
    if (unusable !== undefined) return { ok: false, name: address, reason: `"${address}" is ${unusable}: no router is reached at it` };
    if (ipAddresses.includes(address)) continue;
    ipAddresses.push(address);
    if (isLoopbackKey(key)) continue;
    const owner = controllers.exact.get(key);
    if (owner !== undefined) return { ok: false, name: address, reason: `"${address}" belongs to a controller (${owner})` };
    if (!claimed.includes(key)) claimed.push(key);
  }
  return { ok: true, dnsNames, ipAddresses, claimed };
}

/** The name in a `DNS:`/`IP:` key. */
export function nameOfKey(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

/** `IP:<address>` with IPv6 compressed and an IPv4-mapped IPv6 address as the IPv4 address it is. */
function ipKey(text: string): string | undefined {
  let address: string;
  try {
    address = requireIpAddress(text);
  } catch {
    return undefined;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (mapped) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    address = [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return `IP:${address}`;
}

function unusableAddress(key: string): string | undefined {
  const address = nameOfKey(key);
  if (isIP(address) === 4) {
    const first = Number(address.split('.')[0]);
    if (first === 0) return 'an unspecified ("this network") address';
    if (first >= 224 && first <= 239) return 'a multicast address';
    if (first >= 240) return 'a reserved or broadcast address';
    return undefined;
  }
  if (address === '::') return 'the unspecified address';
  if (address.startsWith('ff')) return 'a multicast address';
  return undefined;
}

function isLoopbackKey(key: string): boolean {
  const address = nameOfKey(key);
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

function isLoopbackDns(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

function wildcardOwner(name: string, controllers: ControllerNames): string | undefined {
  const dot = name.indexOf('.');
  return dot < 0 ? undefined : controllers.wildcardSuffixes.get(name.slice(dot));
}

/** The host of `tls:<host>:<port>`, `<scheme>://<host>[:<port>]` or `<host>:<port>`; brackets off an IPv6 host. */
function hostOfAddress(address: string): string | undefined {
  let rest = address.trim();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length).split('/')[0]!;
  else if (/^tls:/i.test(rest)) rest = rest.slice('tls:'.length);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(rest);
  if (bracketed) return bracketed[1];
  const plain = /^([^:\s]+)(?::\d+)?$/.exec(rest);
  const host = plain?.[1];
  // An unspecified bind address names no host.
  return host === undefined || host === '0.0.0.0' ? undefined : host;
}
