// Every member of the cluster as the Edge APIs' `GET /controllers` shows it: its name, control address, certificate
// and fingerprint, and the addresses of the APIs it serves. A controller knows its own; the others' it asks the
// members it has a peer channel to (peer request `controllers.describe`, answered from their own configuration), at
// most once a `cacheMs`, each within `timeoutMs`. Followers have channels to the leader only, so an answer also
// carries the members its sender last heard from directly: a follower learns the other followers through the
// leader. A member nobody connected heard from is listed offline with what the membership knows (its id and control
// address), never left out: an operator sees the whole cluster.
import { X509Certificate } from 'node:crypto';
import type { Clock } from '../../common/time/clock.ts';

export interface ApiAddress {
  readonly url: string;
  readonly version: string;
}

/** What a controller says of itself. */
export interface ControllerDescriptor {
  readonly id: string;
  readonly name: string;
  readonly ctrlAddress: string;
  /** API binding name (`edge-client`, `edge-management`, …) → where it is served. */
  readonly apiAddresses: Readonly<Record<string, readonly ApiAddress[]>>;
  readonly certPem: string;
  readonly fingerprint: string;
  /** RFC 3339: when this controller process started (and joined the cluster's traffic). */
  readonly startedAt: string;
}

export interface ControllerEntry extends ControllerDescriptor {
  readonly isOnline: boolean;
  readonly isPreferredLeader: boolean;
}

export interface DirectoryMember {
  readonly id: string;
  readonly address: string;
  readonly connected: boolean;
  readonly preferred: boolean;
}

export interface DirectoryPeers {
  request(id: string, body: unknown, timeoutMs: number): Promise<unknown>;
}

export const describeRequestType = 'controllers.describe';

/** A peer's answer: itself, and the members it last heard from directly. */
export interface DescribeAnswer extends ControllerDescriptor {
  readonly peers: readonly ControllerDescriptor[];
}

/** The SHA-1 of a certificate's DER, lowercase hex without separators (as edge router fingerprints are shown). */
export function certificateFingerprint(certPem: string): string {
  return new X509Certificate(certPem).fingerprint.replaceAll(':', '').toLowerCase();
}

/** `{binding: [https://host:port, …]}` and each binding's path as API addresses (version `v1`). */
export function apiAddressesOf(baseUrls: Readonly<Record<string, readonly string[] | undefined>>, paths: Readonly<Record<string, string>>): Record<string, ApiAddress[]> {
  const addresses: Record<string, ApiAddress[]> = {};
  for (const [binding, origins] of Object.entries(baseUrls)) {
    const path = paths[binding];
    if (!origins || origins.length === 0 || path === undefined) continue;
    addresses[binding] = origins.map((origin) => ({ url: `${origin}${path}`, version: 'v1' }));
  }
  return addresses;
}

export class ControllerDirectory {
  private cached: { at: number; entries: Promise<ControllerEntry[]> } | undefined;
  /** The members that answered this controller's last gather themselves. */
  private heardDirectly: ControllerDescriptor[] = [];

  constructor(
    private readonly self: ControllerDescriptor,
    private readonly members: () => readonly DirectoryMember[],
    private readonly peers: DirectoryPeers,
    private readonly clock: Clock,
    private readonly options: { readonly timeoutMs: number; readonly cacheMs: number } = { timeoutMs: 500, cacheMs: 1000 },
  ) {}

  handles(body: unknown): boolean {
    return (body as { type?: unknown } | null)?.type === describeRequestType;
  }

  /** This controller's answer to a peer: never waits for a gather (two controllers asking each other would). */
  describe(): DescribeAnswer {
    if (!this.cached || this.clock.now() - this.cached.at >= this.options.cacheMs) this.list().catch(() => undefined);
    return { ...this.self, peers: this.heardDirectly };
  }

  /** Every member, in id order. */
  list(): Promise<ControllerEntry[]> {
    const now = this.clock.now();
    if (!this.cached || now - this.cached.at >= this.options.cacheMs) this.cached = { at: now, entries: this.gather() };
    return this.cached.entries;
  }

  private async gather(): Promise<ControllerEntry[]> {
    const members = this.members();
    const answers = new Map<string, { self: ControllerDescriptor; peers: ControllerDescriptor[] }>();
    await Promise.all(
      members
        .filter((member) => member.id !== this.self.id && member.connected)
        .map(async (member) => {
          const answer = await this.peers.request(member.id, { type: describeRequestType }, this.options.timeoutMs).catch(() => undefined);
          const described = descriptorIn(answer, member.id);
          if (described) answers.set(member.id, { self: described, peers: relayedIn(answer) });
        }),
    );
    this.heardDirectly = [...answers.values()].map((answer) => answer.self);
    const relayed = new Map<string, ControllerDescriptor>();
    for (const answer of answers.values()) for (const peer of answer.peers) if (!answers.has(peer.id)) relayed.set(peer.id, peer);
    const entries = members.map((member): ControllerEntry => {
      if (member.id === this.self.id) return { ...this.self, isOnline: true, isPreferredLeader: member.preferred };
      const described = answers.get(member.id)?.self ?? relayed.get(member.id);
      if (described) return { ...described, isOnline: true, isPreferredLeader: member.preferred };
      return { id: member.id, name: member.id, ctrlAddress: member.address, apiAddresses: {}, certPem: '', fingerprint: '', startedAt: '', isOnline: false, isPreferredLeader: member.preferred };
    });
    if (!members.some((member) => member.id === this.self.id)) entries.push({ ...this.self, isOnline: true, isPreferredLeader: false });
    return entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** The members a peer says it heard from directly (malformed ones dropped). */
function relayedIn(answer: unknown): ControllerDescriptor[] {
  const peers = (answer as { peers?: unknown } | null | undefined)?.peers;
  if (!Array.isArray(peers)) return [];
  return peers.slice(0, 64).flatMap((peer) => {
    const described = descriptorIn(peer, (peer as { id?: unknown } | null)?.id as string);
    return described ? [described] : [];
  });
}

/** A descriptor of member `id`, if well formed and naming it. */
function descriptorIn(answer: unknown, id: string): ControllerDescriptor | undefined {
  const value = answer as Partial<ControllerDescriptor> | null | undefined;
  if (!value || typeof id !== 'string' || value.id !== id) return undefined;
  if (typeof value.name !== 'string' || typeof value.ctrlAddress !== 'string' || typeof value.certPem !== 'string' || typeof value.fingerprint !== 'string' || typeof value.startedAt !== 'string') return undefined;
  if (typeof value.apiAddresses !== 'object' || value.apiAddresses === null) return undefined;
  const apiAddresses: Record<string, ApiAddress[]> = {};
  for (const [binding, list] of Object.entries(value.apiAddresses)) {
    if (!Array.isArray(list)) return undefined;
    apiAddresses[binding] = list.filter((item): item is ApiAddress => typeof item?.url === 'string' && typeof item?.version === 'string').map((item) => ({ url: item.url, version: item.version }));
  }
  return { id, name: value.name, ctrlAddress: value.ctrlAddress, apiAddresses, certPem: value.certPem, fingerprint: value.fingerprint, startedAt: value.startedAt };
}
