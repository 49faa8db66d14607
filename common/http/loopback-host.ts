// DNS-rebinding defence for servers bound to loopback: a page on another site can make a browser resolve its own name
// to 127.0.0.1 and reach a loopback server, but the browser still sends that site's name in `Host`. Such a server
// answers only a `Host` naming itself: 127.0.0.1:<port>, localhost:<port>, [::1]:<port> or its configured address.
// A server bound to another address (0.0.0.0, a LAN address) is reached by names this module cannot know: no check.

import { isIP } from 'node:net';

/** The status a refused `Host` gets: 421 Misdirected Request (this server does not answer for that name). */
export const misdirectedStatus = 421;

/** True for an address only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * A check of the `Host` header for a server listening on `listenHost`:`port` (the real port, once bound).
 * `defaultPort`: the port a browser leaves out of `Host` (80 for http, 443 for https).
 */
export function hostHeaderCheck(listenHost: string, port: number, defaultPort: number): (host: string | undefined) => boolean {
  if (!isLoopbackAddress(listenHost)) return () => true;
  const configured = listenHost.replace(/^\[|\]$/g, '').toLowerCase();
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', isIP(configured) === 6 ? `[${configured}]` : configured]);
  const accepted = new Set<string>();
  for (const name of names) {
    accepted.add(`${name}:${port}`);
    if (port === defaultPort) accepted.add(name);
  }
  return (host) => host !== undefined && accepted.has(host.toLowerCase().replace(/\.$/, '').replace(/\.:(\d+)$/, ':$1'));
}
