// A link dialer's `bind`: a local IP, or the name of an interface whose address to dial from. Pure: the host's
// interfaces are a parameter (the driver passes os.networkInterfaces()).

import { isIP } from 'node:net';

export interface InterfaceAddress {
  readonly address: string;
  readonly family: string | number;
  readonly internal?: boolean;
}

export type InterfaceTable = Readonly<Record<string, readonly InterfaceAddress[] | undefined>>;

/**
 * The local address to dial `targetHost` from, or undefined when `bind` names neither an IP nor an interface with
 * an address of the target's family (IPv4 unless the target is an IPv6 literal).
 */
export function bindAddressFor(bind: string, targetHost: string, interfaces: InterfaceTable): string | undefined {
  const literal = bind.startsWith('[') && bind.endsWith(']') ? bind.slice(1, -1) : bind;
  if (isIP(literal) !== 0) return literal;
  const wantV6 = isIP(targetHost) === 6;
  const family = (entry: InterfaceAddress) => (entry.family === 6 || entry.family === 'IPv6' ? 6 : 4);
  const candidates = (interfaces[bind] ?? []).filter((entry) => family(entry) === (wantV6 ? 6 : 4));
  // Link-local IPv6 needs a scope id to be usable as a source; prefer a global one.
  const preferred = candidates.find((entry) => !entry.address.toLowerCase().startsWith('fe80:')) ?? candidates[0];
  return preferred?.address;
}
