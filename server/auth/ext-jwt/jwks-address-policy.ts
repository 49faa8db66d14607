// Which addresses a JWKS fetch may connect to. A signer's endpoint is set through the Management API, so without a
// check an admin account (or whoever holds one) could make the controller fetch from its own loopback services, the
// cloud metadata address or the private network behind it. By default the endpoint's name is resolved once, every
// address it resolves to must be public, and the connection goes to the address that was checked (a second answer
// from DNS cannot swap in another). `edge.extJwt.allowPrivateJwksAddresses` lets an operator whose issuer lives on
// the private network allow them.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export interface JwksAddressPolicy {
  /** Loopback, link-local, private and other non-public addresses are allowed too. */
  readonly allowPrivateAddresses: boolean;
  /** Every address of a host name (default: the system resolver, as connections use it). */
  readonly resolve?: (hostname: string) => Promise<readonly ResolvedAddress[]>;
}

const ranges: ReadonlyArray<readonly [kind: string, cidr: string]> = [
  ['loopback', '127.0.0.0/8'],
  ['loopback', '::1/128'],
  ['unspecified', '0.0.0.0/8'],
  ['unspecified', '::/128'],
  ['link-local', '169.254.0.0/16'],
  ['link-local', 'fe80::/10'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['private', 'fc00::/7'],
  ['private', 'fec0::/10'],
  ['shared (carrier-grade NAT)', '100.64.0.0/10'],
  ['reserved', '192.0.0.0/24'],
  ['reserved', '198.18.0.0/15'],
  ['reserved', '240.0.0.0/4'],
  ['multicast', '224.0.0.0/4'],
  ['multicast', 'ff00::/8'],
];

const lists = new Map<string, BlockList>();
for (const [kind, cidr] of ranges) {
  const list = lists.get(kind) ?? new BlockList();
  const [network, prefix] = cidr.split('/');
  list.addSubnet(network!, Number(prefix), isIP(network!) === 6 ? 'ipv6' : 'ipv4');
  lists.set(kind, list);
}

/** What kind of non-public address this is (`loopback`, `link-local`, `private`, ...), or undefined when public. */
export function nonPublicKind(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? mapped[1]! : address;
  const family = isIP(plain);
  if (family === 0) return 'not an IP address';
  for (const [kind, list] of lists) if (list.check(plain, family === 6 ? 'ipv6' : 'ipv4')) return kind;
  return undefined;
}

async function systemResolve(hostname: string): Promise<readonly ResolvedAddress[]> {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
}

/**
 * The address to connect to for `hostname` (a name or an IP literal, without brackets), checked against the policy;
 * or the reason it is refused. Every address a name resolves to is checked: one private answer refuses the name.
 */
export async function checkedJwksAddress(hostname: string, policy: JwksAddressPolicy): Promise<{ readonly target: ResolvedAddress } | { readonly refused: string }> {
  const literal = isIP(hostname);
  const addresses = literal !== 0 ? [{ address: hostname, family: literal as 4 | 6 }] : await (policy.resolve ?? systemResolve)(hostname);
  if (addresses.length === 0) return { refused: `${hostname} resolves to no address` };
  if (!policy.allowPrivateAddresses) {
    for (const { address } of addresses) {
      const kind = nonPublicKind(address);
      if (kind === undefined) continue;
      const what = literal !== 0 ? `${address} is a ${kind} address` : `${hostname} resolves to ${address}, a ${kind} address`;
      return { refused: `${what}; JWKS endpoints must be public unless edge.extJwt.allowPrivateJwksAddresses is true` };
    }
  }
  return { target: addresses[0]! };
}
