// What an egress router can dial for a terminator, decided the same way on both sides of the control channel: the
// controller refuses an administrator's terminator it names otherwise (POST/PUT/PATCH /terminators), and the router
// checks again before it dials (a route names the terminator's binding). Router-registered terminators (binding
// `tunnel`) are dialed only at the address the router hosts itself; an administrator's terminator with binding
// `transport` (OpenZiti's xgress_transport) is dialed at its address, which must be `tcp:<host>:<port>`. Pure.

/** The binding of terminators a router dials directly at the address an administrator gave. */
export const transportBinding = 'transport';

/** The binding of the terminators routers register for the services they host (host.v1). */
export const tunnelBinding = 'tunnel';

/** The binding of SDK-hosted terminators (an SDK's Bind on a router's edge listener), as OpenZiti names it. */
export const sdkBinding = 'edge';

/** `tcp:<host>:<port>` (host may be a bracketed IPv6 literal) as host and port, or undefined. */
export function parseTerminatorAddress(address: string): { host: string; port: number } | undefined {
  const match = /^tcp:(\[[^\][]+\]|[^:[\]]+):(\d{1,5})$/.exec(address);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  const host = match[1]!.startsWith('[') ? match[1]!.slice(1, -1) : match[1]!;
  return { host, port };
}

/** Why no router can dial an administrator's terminator with this binding and address, or undefined when one can. */
export function adminTerminatorProblem(binding: string, address: string): { field: 'binding' | 'address'; reason: string } | undefined {
  if (binding !== transportBinding) {
    return { field: 'binding', reason: `routers dial administrator terminators of binding "${transportBinding}" only (router-registered terminators carry "${tunnelBinding}")` };
  }
  if (!parseTerminatorAddress(address)) return { field: 'address', reason: 'a transport terminator address must be tcp:<host>:<port> (an IPv6 host in brackets, port 1-65535)' };
  return undefined;
}
