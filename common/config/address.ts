// Network addresses as config files write them: `<protocol>:<host>:<port>` (listeners, links) or bare
// `<host>:<port>` (web bind points). IPv6 literals must be bracketed; hosts are stored without brackets.

import { isIP } from 'node:net';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface Address<P extends string = string> extends HostPort {
  readonly protocol: P;
}

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const PROTOCOL = /^[a-z][a-z0-9]*$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;
const DIGITS = /^\d+$/;

/** `host:port` or `[v6]:port`. */
export function parseHostPort(text: string): ParseResult<HostPort> {
  let host: string;
  let portText: string;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return fail('unclosed "[" in IPv6 address');
    host = text.slice(1, close);
    if (isIP(host) !== 6) return fail(`"${host}" is not an IPv6 address`);
    if (text[close + 1] !== ':') return fail('missing port after "]"; expected [<ipv6>]:<port>');
    portText = text.slice(close + 2);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon < 0) return fail('missing port; expected <host>:<port>');
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host === '') return fail('missing host; expected <host>:<port>');
    if (host.includes(':')) return fail('an IPv6 address must be in brackets, e.g. [::1]:6262');
    if (!HOSTNAME.test(host)) return fail(`"${host}" is not a valid host name or IP address`);
    if (/^[\d.]+$/.test(host) && isIP(host) !== 4) return fail(`"${host}" is not a valid IPv4 address`);
  }
  if (!DIGITS.test(portText)) return fail(`port "${portText}" is not a number`);
  const port = Number(portText);
  if (port < 1 || port > 65535) return fail(`port ${port} is outside 1-65535`);
  return { ok: true, value: { host, port } };
}

/** `<protocol>:<host>:<port>`; when `protocols` is given, only those are accepted. */
export function parseAddress<P extends string>(text: string, protocols?: readonly P[]): ParseResult<Address<P>> {
  const colon = text.indexOf(':');
  const protocol = colon < 0 ? '' : text.slice(0, colon);
  const allowed = protocols === undefined ? PROTOCOL.test(protocol) : (protocols as readonly string[]).includes(protocol);
  if (!allowed) {
    const example = `${protocols?.[0] ?? 'tls'}:<host>:<port>`;
    if (parseHostPort(text).ok) return fail(`missing protocol; expected ${example}`);
    if (!PROTOCOL.test(protocol)) return fail(`expected <protocol>:<host>:<port>, e.g. ${example}`);
    return fail(`protocol "${protocol}" is not allowed here (allowed: ${protocols!.join(', ')})`);
  }
  const hostPort = parseHostPort(text.slice(colon + 1));
  if (!hostPort.ok) return hostPort;
  return { ok: true, value: { protocol: protocol as P, ...hostPort.value } };
}

export function formatHostPort(address: HostPort): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

export function formatAddress(address: Address): string {
  return `${address.protocol}:${formatHostPort(address)}`;
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}
