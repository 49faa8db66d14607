// The nftables rules that send intercepted connections to the router's tproxy listeners: one nat `output` chain (the
// host's own connections; OpenZiti's tunneler also serves them) with, per intercepted service, `ip daddr {…} tcp
// dport {…} redirect to :<listener port>`. The whole table is replaced in one `nft -f` transaction, so a change never
// leaves a moment without rules or with half of them. Pure: rules in, script out.
import type { PortRange } from './intercept-plan.ts';

export interface RedirectRule {
  readonly service: string;
  /** IPv4 addresses and CIDRs. */
  readonly addresses: readonly string[];
  readonly ports: readonly PortRange[];
  /** The listener on 127.0.0.1 that takes the connections. */
  readonly listenPort: number;
}

/** An nft table name for this router: letters, digits and underscores. */
export function nftTableName(routerId: string): string {
  return `edgeward_${routerId.replace(/[^A-Za-z0-9]/g, '_').slice(0, 40)}`;
}

export function nftReplaceScript(table: string, rules: readonly RedirectRule[]): string {
  const lines = [`table ip ${table}`, `delete table ip ${table}`, `table ip ${table} {`, '  chain output {', '    type nat hook output priority -100; policy accept;'];
  for (const rule of rules) {
    if (rule.addresses.length === 0 || rule.ports.length === 0) continue;
    const ports = rule.ports.map((range) => (range.low === range.high ? `${range.low}` : `${range.low}-${range.high}`));
    lines.push(`    ip daddr { ${rule.addresses.join(', ')} } tcp dport { ${ports.join(', ')} } redirect to :${rule.listenPort} comment "${rule.service.replace(/[^A-Za-z0-9 ._:-]/g, '_').slice(0, 100)}"`);
  }
  lines.push('  }', '}');
  return `${lines.join('\n')}\n`;
}

export function nftDeleteScript(table: string): string {
  return `table ip ${table}\ndelete table ip ${table}\n`;
}
