// The string formats router config values use beyond the kit's addresses and durations: advertise addresses, tunnel
// proxy services, the tproxy resolver URL and service IP range, and certificate SANs. Each parser returns the value
// or a message saying what was expected, so the schema can report it with the key's path and line.

import { isIP } from 'node:net';
import { parseAddress, parseHostPort } from '../../common/config/address.ts';
import type { HostPort, ParseResult } from '../../common/config/address.ts';

/** Transport protocols an address may name (listeners, links, controller endpoints). */
export const addressProtocols = ['tls', 'tcp', 'udp', 'dtls', 'ws', 'wss', 'transwarp', 'transwarptls'] as const;
export type AddressProtocol = (typeof addressProtocols)[number];

/** A link listener's advertise address: `<protocol>:<host>:<port>`, or `<host>:<port>` taking the bind protocol. */
export type LinkAdvertise = HostPort & { readonly protocol?: AddressProtocol };

export function parseLinkAdvertise(text: string): ParseResult<LinkAdvertise> {
  const withProtocol = parseAddress(text, addressProtocols);
  if (withProtocol.ok) return withProtocol;
  const bare = parseHostPort(text);
  return bare.ok ? bare : withProtocol;
}

/** An edge listener's advertise address: `<host>:<port>` with no protocol (SDKs are told it as is). */
export function parseBareAdvertise(text: string): ParseResult<HostPort> {
  const withProtocol = parseAddress(text, addressProtocols);
  if (withProtocol.ok) {
    const { host, port } = withProtocol.value;
    return fail(`is <host>:<port> without a protocol, e.g. ${host.includes(':') ? `[${host}]` : host}:${port}`);
  }
  return parseHostPort(text);
}

export interface TunnelService {
  readonly service: string;
  readonly port: number;
  readonly protocol: 'tcp' | 'udp';
}

/** A proxy-mode tunnel entry: `<service>:<port>`, optionally `:tcp` or `:udp` (default tcp). */
export function parseTunnelService(text: string): ParseResult<TunnelService> {
  const parts = text.split(':');
  let protocol: 'tcp' | 'udp' = 'tcp';
  const last = parts[parts.length - 1];
  if (parts.length >= 3 && (last === 'tcp' || last === 'udp')) {
    protocol = last;
    parts.pop();
  }
  if (parts.length < 2) return fail('expected <service>:<port>, e.g. my-service:8080');
  const portText = parts.pop()!;
  const service = parts.join(':');
  if (service === '') return fail('missing service name; expected <service>:<port>');
  if (!/^\d+$/.test(portText)) return fail(`port "${portText}" is not a number; expected <service>:<port>[:udp]`);
  const port = Number(portText);
  if (port < 1 || port > 65535) return fail(`port ${port} is outside 1-65535`);
  return { ok: true, value: { service, port, protocol } };
}

export function formatTunnelService(entry: TunnelService): string {
  return entry.protocol === 'udp' ? `${entry.service}:${entry.port}:udp` : `${entry.service}:${entry.port}`;
}

/** The tproxy nameserver: `udp://<host>:<port>`. Kept as written once checked. */
export function parseResolverUrl(text: string): ParseResult<string> {
  const match = /^udp:\/\/(.*)$/.exec(text);
  if (!match) return fail('expected udp://<host>:<port>, e.g. udp://127.0.0.1:53');
  const hostPort = parseHostPort(match[1]!);
  return hostPort.ok ? { ok: true, value: text } : hostPort;
}

/** An IPv4 or IPv6 range in CIDR notation (`100.64.0.1/10`). Kept as written once checked. */
export function parseCidr(text: string): ParseResult<string> {
  const slash = text.indexOf('/');
  if (slash < 0) return fail('expected <ip>/<prefix length>, e.g. 100.64.0.1/10');
  const ip = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  const family = isIP(ip);
  if (family === 0) return fail(`"${ip}" is not an IP address`);
  const max = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(prefix) || Number(prefix) > max) return fail(`prefix length "${prefix}" must be 0-${max}`);
  return { ok: true, value: text };
}

const DNS_NAME = /^(\*\.)?(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*$/;

export function parseDnsSan(text: string): ParseResult<string> {
  return DNS_NAME.test(text) ? { ok: true, value: text } : fail('is not a DNS name (letters, digits, "-" and ".", optionally starting with "*.")');
}

export function parseIpSan(text: string): ParseResult<string> {
  return isIP(text) !== 0 ? { ok: true, value: text } : fail('is not an IPv4 or IPv6 address');
}

export function parseEmailSan(text: string): ParseResult<string> {
  return /^[^\s@]+@[^\s@]+$/.test(text) ? { ok: true, value: text } : fail('is not an e-mail address');
}

export function parseUriSan(text: string): ParseResult<string> {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text) ? { ok: true, value: text } : fail('is not a URI (<scheme>:<rest>, e.g. spiffe://example.org/router)');
}

/** A certificate's SHA-1 fingerprint: 40 hex digits, any case, colons allowed (as openssl prints it); lowercase hex out. */
export function parseCertificateFingerprint(text: string): ParseResult<string> {
  const compact = text.trim().replaceAll(':', '').toLowerCase();
  return /^[0-9a-f]{40}$/.test(compact) ? { ok: true, value: compact } : fail('is not a SHA-1 fingerprint (40 hex digits, colons allowed)');
}

/** Whether a certificate with these SANs is valid for `host` (exact name, one-label `*.` wildcard, or IP). */
export function sansCover(sans: { readonly dns: readonly string[]; readonly ip: readonly string[] }, host: string): boolean {
  if (isIP(host) !== 0) return sans.ip.includes(host);
  const name = host.toLowerCase();
  return sans.dns.some((san) => {
    const pattern = san.toLowerCase();
    if (!pattern.startsWith('*.')) return pattern === name;
    const dot = name.indexOf('.');
    return dot > 0 && name.slice(dot + 1) === pattern.slice(2);
  });
}


function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}
