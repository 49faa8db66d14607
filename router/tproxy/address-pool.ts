// The addresses the tproxy nameserver hands out for intercepted host names, from `dnsSvcIpRange` (a CIDR such as
// 100.64.0.1/10). The given address and the one after it are the tunneler's own in OpenZiti (its interface and its
// nameserver), so names get addresses from the second one after it, in order of first asking. A name a service's
// config spells out keeps its address for as long as the router runs. A name under a wildcard is leased: anyone who
// can ask the nameserver can make up such names, so at most `maxWildcardNames` hold an address at once, and the
// least recently asked gives its address up for a new one. While the range has fresh addresses a new name gets one
// (a given-up address is not reused then, so a client's cached answer rarely points at another name); after that a
// new name takes over the least recently asked name's address. Memory stays bounded either way. Pure.

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

/** Names under wildcards holding an address at once, by default. */
export const defaultMaxWildcardNames = 4096;

export class AddressPool {
  /** Names a config spells out: never given up. */
  private readonly pinned = new Map<string, string>();
  /** Names under wildcards, least recently asked first. */
  private readonly leased = new Map<string, string>();
  private next: number;
  private evictions = 0;

  constructor(
    private readonly range: Ipv4Range,
    readonly maxWildcardNames: number = defaultMaxWildcardNames,
  ) {
    this.next = range.first;
  }

  /** A name a config spells out: its address (the same every time), or undefined when the range is used up. */
  addressOf(name: string): string | undefined {
    const held = this.pinned.get(name);
    if (held) return held;
    const leased = this.leased.get(name);
    if (leased) {
      this.leased.delete(name);
      this.pinned.set(name, leased);
      return leased;
    }
    const address = this.take() ?? this.evictOldest();
    if (address) this.pinned.set(name, address);
    return address;
  }

  /**
   * A name under a wildcard: its address, now the most recently asked. A new name beyond `maxWildcardNames` (or
   * when the range is used up) takes over the address of the least recently asked one.
   */
  leaseFor(name: string): string | undefined {
    const pinned = this.pinned.get(name);
    if (pinned) return pinned;
    const held = this.leased.get(name);
    if (held) {
      this.leased.delete(name);
      this.leased.set(name, held);
      return held;
    }
    if (this.maxWildcardNames <= 0) return undefined;
    const atCap = this.leased.size >= this.maxWildcardNames;
    let address = this.take();
    if (address && atCap) this.evictOldest();
    address ??= this.evictOldest();
    if (address) this.leased.set(name, address);
    return address;
  }

  /** The address given to `name` so far, without handing out a new one or counting it as asked. */
  peek(name: string): string | undefined {
    return this.pinned.get(name) ?? this.leased.get(name);
  }

  /** Every name holding an address now. */
  names(): string[] {
    return [...this.pinned.keys(), ...this.leased.keys()];
  }

  get size(): number {
    return this.pinned.size + this.leased.size;
  }

  /** Names under wildcards holding an address now. */
  get wildcardNames(): number {
    return this.leased.size;
  }

  /** How many names under wildcards gave up their address so far. */
  get evicted(): number {
    return this.evictions;
  }

  private take(): string | undefined {
    return this.next <= this.range.last ? numberToIpv4(this.next++) : undefined;
  }

  private evictOldest(): string | undefined {
    const oldest = this.leased.keys().next();
    if (oldest.done) return undefined;
    const address = this.leased.get(oldest.value)!;
    this.leased.delete(oldest.value);
    this.evictions++;
    return address;
  }
}
