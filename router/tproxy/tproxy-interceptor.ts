// The `tproxy` mode of a tunnel listener (driver): a nameserver on `resolver` that answers the intercepted host
// names with addresses from `dnsSvcIpRange` (NXDOMAIN for any other name, an empty answer for other record types),
// one TCP listener on 127.0.0.1 per intercepted service, and nftables rules that redirect the host's connections to
// the services' addresses and ports to those listeners (nft-ruleset.ts); each connection becomes a circuit to its
// service (forwarder.ts), dialed as the router's identity. A local route sends dnsSvcIpRange to the loopback device,
// so connections to handed-out addresses have somewhere to go before they are redirected.
//
// Root (or CAP_NET_ADMIN and CAP_NET_BIND_SERVICE) and the `nft` and `ip` commands are needed. Where they are not
// there, the router logs why (`tproxy interception unavailable`) and goes on without intercepting: it still hosts
// services. The rules and the route are removed when the router stops.
import { execFile } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import type { Logger } from '../../common/log/logger.ts';
import { AddressPool, parseIpv4Range, type Ipv4Range } from './address-pool.ts';
import { dnsAnswer, dnsFormatError, dnsRcodes, dnsTypes, parseDnsQuery } from './dns-message.ts';
import { interceptPlan, type InterceptedService } from './intercept-plan.ts';
import { nftDeleteScript, nftElementsScript, nftReplaceScript, nftTableName, type RedirectRule, type SetChange } from './nft-ruleset.ts';

export interface TproxyTarget {
  dial(service: string, socket: Socket, listener: string): Promise<void>;
}

export interface TproxyOptions {
  readonly routerId: string;
  /** `udp://<host>:<port>` */
  readonly resolver: string;
  readonly dnsSvcIpRange: string;
  readonly target: TproxyTarget;
  readonly logger: Logger;
  /** Runs a command with its stdin (default: child_process.execFile): nft and ip. */
  readonly run?: (command: string, args: readonly string[], input?: string) => Promise<void>;
  /** Names under wildcards holding an address at once (default 4096, address-pool.ts). */
  readonly maxWildcardNames?: number;
}

interface Listening {
  readonly server: Server;
  readonly port: number;
}

export class TproxyInterceptor {
  private readonly table: string;
  private readonly range: Ipv4Range | undefined;
  private readonly pool: AddressPool | undefined;
  private plan: InterceptedService[] = [];
  private readonly listeners = new Map<string, Listening>();
  private readonly sockets = new Set<Socket>();
  private dns: UdpSocket | undefined;
  private applying: Promise<void> = Promise.resolve();
  /** The apply not yet started: every request made meanwhile waits for it rather than queueing its own. */
  private nextApply: Promise<void> | undefined;
  private capLogged = false;
  /** What nft holds now: the table without its wildcard elements, and each wildcard set's elements. */
  private applied: { readonly structure: string; readonly sets: Map<string, Set<string>> } | undefined;
  private tableWritten = false;
  private routeAdded = false;
  private available = true;
  private stopped = false;

  constructor(private readonly options: TproxyOptions) {
    this.table = nftTableName(options.routerId);
    const range = parseIpv4Range(options.dnsSvcIpRange);
    if ('error' in range) {
      options.logger.error('tproxy interception unavailable', { reason: range.error });
      this.available = false;
    } else {
      this.range = range;
      this.pool = new AddressPool(range, options.maxWildcardNames);
    }
  }

  /** Binds the nameserver and adds the route; on failure logs why and leaves interception off. */
  async start(): Promise<void> {
    if (!this.available || !this.range) return;
    const resolver = /^udp:\/\/(\[[^\]]+\]|[^:]+):(\d+)$/.exec(this.options.resolver);
    if (!resolver) return this.unavailable(`resolver ${this.options.resolver} is not udp://<host>:<port>`);
    const host = resolver[1]!.replace(/^\[|\]$/g, '');
    const port = Number(resolver[2]);
    try {
      await this.run('ip', ['route', 'replace', 'local', this.range.cidr, 'dev', 'lo']);
      this.routeAdded = true;
      await this.applyRules();
    } catch (error) {
      return this.unavailable(`cannot install the route or the nftables rules: ${(error as Error).message} (tproxy mode needs root or CAP_NET_ADMIN, and the ip and nft commands)`);
    }
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind(port, host, () => {
          socket.removeListener('error', reject);
          resolve();
        });
      });
    } catch (error) {
      socket.close();
      return this.unavailable(`the nameserver cannot listen on ${this.options.resolver}: ${(error as Error).message}`);
    }
    socket.on('message', (message, remote) => void this.answer(message, remote.address, remote.port));
    socket.on('error', (error) => this.options.logger.error('tproxy nameserver error', { error: error.message }));
    this.dns = socket;
    this.options.logger.info('tproxy nameserver started', { resolver: this.options.resolver, dnsSvcIpRange: this.options.dnsSvcIpRange });
  }

  /** A new edge model: the services intercepted now, their listeners and rules. */
  async modelChanged(model: EdgeModel): Promise<void> {
    if (!this.available || this.stopped) return;
    const plan = interceptPlan(this.options.routerId, model);
    for (const service of plan) {
      if (service.skipped.length > 0) this.options.logger.warn('tproxy addresses not intercepted (IPv6 or not an address)', { service: service.serviceName, addresses: service.skipped.slice(0, 20) });
      // Exact names get their addresses now, so their rules exist before anyone asks.
      for (const name of service.hostnames) this.pool!.addressOf(name);
    }
    const wanted = new Set(plan.map((service) => service.serviceName));
    for (const [name, listening] of this.listeners) {
      if (wanted.has(name)) continue;
      this.listeners.delete(name);
      listening.server.close();
    }
    for (const service of plan) if (!this.listeners.has(service.serviceName)) await this.listen(service.serviceName);
    this.plan = plan;
    await this.applyRules();
    this.options.logger.info('tproxy intercepts', { services: plan.map((service) => service.serviceName).slice(0, 20), count: plan.length });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.dns?.close();
    for (const socket of this.sockets) socket.destroy();
    for (const listening of this.listeners.values()) listening.server.close();
    this.listeners.clear();
    await this.applying.catch(() => undefined);
    if (this.tableWritten) await this.run('nft', ['-f', '-'], nftDeleteScript(this.table)).catch((error: Error) => this.options.logger.warn('tproxy rules not removed', { error: error.message }));
    if (this.routeAdded && this.range) await this.run('ip', ['route', 'del', 'local', this.range.cidr, 'dev', 'lo']).catch(() => undefined);
  }

  /**
   * The service a name belongs to, and its address when `lease` (an A query): handed out now, or leased again, for a
   * name under a wildcard. Other queries hand out nothing.
   */
  private lookup(name: string, lease: boolean): { service: InterceptedService; address: string | undefined } | undefined {
    for (const service of this.plan) {
      if (service.hostnames.includes(name)) return { service, address: lease ? this.pool!.addressOf(name) : undefined };
    }
    for (const service of this.plan) {
      if (service.wildcards.some((suffix) => name.endsWith(`.${suffix}`))) return { service, address: lease ? this.leaseWildcardName(name) : undefined };
    }
    return undefined;
  }

  private leaseWildcardName(name: string): string | undefined {
    const pool = this.pool!;
    const address = pool.leaseFor(name);
    if (!this.capLogged && pool.evicted > 0) {
      this.capLogged = true;
      this.options.logger.warn('tproxy wildcard names at their cap: the least recently asked give up their addresses', { maxWildcardNames: pool.maxWildcardNames });
    }
    return address;
  }

  private async answer(message: Buffer, address: string, port: number): Promise<void> {
    const query = parseDnsQuery(message);
    if (!query) {
      const error = dnsFormatError(message);
      if (error) this.dns?.send(error, port, address);
      return;
    }
    let reply: Buffer;
    if (query.opcode !== 0 || query.question.klass !== 1) reply = dnsAnswer(query, dnsRcodes.NOTIMP);
    else {
      const found = this.lookup(query.question.name, query.question.type === dnsTypes.A);
      if (!found) reply = dnsAnswer(query, dnsRcodes.NXDOMAIN);
      else if (query.question.type !== dnsTypes.A) reply = dnsAnswer(query, dnsRcodes.NOERROR);
      else if (!found.address) reply = dnsAnswer(query, dnsRcodes.REFUSED);
      else {
        // A wildcard name's first address needs its rule before the client connects to it.
        await this.applyRules().catch(() => undefined);
        reply = dnsAnswer(query, dnsRcodes.NOERROR, [found.address]);
      }
    }
    this.dns?.send(reply, port, address);
  }

  private async listen(serviceName: string): Promise<void> {
    const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      void this.options.target.dial(serviceName, socket, `tproxy ${serviceName}`).catch(() => socket.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    this.listeners.set(serviceName, { server, port: (server.address() as { port: number }).port });
  }

  private rules(): RedirectRule[] {
    return this.plan.flatMap((service, index) => {
      const listening = this.listeners.get(service.serviceName);
      if (!listening) return [];
      const addressesOf = (names: readonly string[]) => names.map((name) => this.pool!.peek(name)).filter((address): address is string => address !== undefined);
      const addresses = [...new Set([...addressesOf(service.hostnames), ...service.ipv4])];
      const wildcard = service.wildcards.length > 0 ? { wildcardSet: { name: `w${index}`, addresses: [...new Set(addressesOf(this.namesUnder(service)))].filter((address) => !addresses.includes(address)) } } : {};
      return [{ service: service.serviceName, addresses, ports: service.ports, listenPort: listening.port, ...wildcard }];
    });
  }

  private namesUnder(service: InterceptedService): string[] {
    return this.pool!.names().filter((name) => service.wildcards.some((suffix) => name.endsWith(`.${suffix}`)));
  }

  /**
   * Replaces the table when the rules changed; applies run one after another, and the requests made while one runs
   * share the next: a burst of new names costs two `nft` runs, not one per name.
   */
  private applyRules(): Promise<void> {
    if (this.nextApply) return this.nextApply;
    const next = this.applying.then(async () => {
      // From here on a new request needs a new apply: this one reads the rules now.
      this.nextApply = undefined;
      if (this.stopped) return;
      const rules = this.rules();
      const sets = new Map(rules.flatMap((rule) => (rule.wildcardSet ? [[rule.wildcardSet.name, new Set(rule.wildcardSet.addresses)] as const] : [])));
      const structure = nftReplaceScript(this.table, rules.map((rule) => (rule.wildcardSet ? { ...rule, wildcardSet: { ...rule.wildcardSet, addresses: [] } } : rule)));
      const applied = this.applied;
      // Until a transaction succeeds nft's state is unknown: the next apply replaces the whole table.
      this.applied = undefined;
      if (!applied || applied.structure !== structure) {
        await this.run('nft', ['-f', '-'], nftReplaceScript(this.table, rules));
        this.tableWritten = true;
      } else {
        const changes: SetChange[] = [...sets].map(([set, wanted]) => {
          const held = applied.sets.get(set) ?? new Set<string>();
          return { set, add: [...wanted].filter((address) => !held.has(address)), remove: [...held].filter((address) => !wanted.has(address)) };
        });
        const script = nftElementsScript(this.table, changes);
        if (script !== '') await this.run('nft', ['-f', '-'], script);
      }
      this.applied = { structure, sets };
    });
    this.nextApply = next;
    this.applying = next.catch((error: Error) => this.options.logger.error('tproxy rules not applied', { error: error.message }));
    return next;
  }

  private unavailable(reason: string): void {
    this.available = false;
    this.options.logger.error('tproxy interception unavailable', { reason });
  }

  private run(command: string, args: readonly string[], input?: string): Promise<void> {
    if (this.options.run) return this.options.run(command, args, input);
    return new Promise((resolve, reject) => {
      const child = execFile(command, [...args], { timeout: 10_000 }, (error, _stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
        else resolve();
      });
      if (input !== undefined) child.stdin?.end(input);
    });
  }
}
