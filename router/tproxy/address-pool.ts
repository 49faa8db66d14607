// The addresses the tproxy nameserver hands out for intercepted host names, from `dnsSvcIpRange` (a CIDR such as
// 100.64.0.1/10). The given address and the one after it are the tunneler's own in OpenZiti (its interface and its
// nameserver), so names get addresses from the second one after it, in order of first asking; a name keeps its
// address for as long as the router runs. Pure.

export interface Ipv4Range {
  /** The first address handed out (as a 32-bit number). */
  readonly first: number;
  /** The last usable address (the broadcast address is left out). */
  readonly last: number;
  readonly cidr: string;
}

export function ipv4ToNumber(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

export function numberToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The range of a CIDR, or an error. */
export function parseIpv4Range(cidr: string): Ipv4Range | { readonly error: string } {
  const match = /^([\d.]+)\/(\d{1,2})$/.exec(cidr.trim());
  const base = match ? ipv4ToNumber(match[1]!) : undefined;
  const bits = match ? Number(match[2]) : NaN;
  if (base === undefined || !(bits >= 8 && bits <= 30)) return { error: `dnsSvcIpRange ${cidr} is not an IPv4 CIDR of /8 to /30` };
  const size = 2 ** (32 - bits);
  const network = base - (base % size);
  const broadcast = network + size - 1;
  const first = Math.max(base, network + 1) + 2;
  if (first >= broadcast) return { error: `dnsSvcIpRange ${cidr} leaves no address for services` };
  return { first, last: broadcast - 1, cidr: `${numberToIpv4(network)}/${bits}` };
}

export class AddressPool {
  private readonly byName = new Map<string, string>();
  private next: number;

  constructor(private readonly range: Ipv4Range) {
    this.next = range.first;
  }

  /** The name's address (the same every time), or undefined when the range is used up. */
  addressOf(name: string): string | undefined {
    const held = this.byName.get(name);
    if (held) return held;
    if (this.next > this.range.last) return undefined;
    const address = numberToIpv4(this.next++);
    this.byName.set(name, address);
    return address;
  }

  /** The address given to `name` so far, without handing out a new one. */
  peek(name: string): string | undefined {
    return this.byName.get(name);
  }

  /** Every name given an address so far. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }
}
