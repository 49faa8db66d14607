// The nftables rules that send intercepted connections to the router's tproxy listeners: one nat `output` chain (the
// host's own connections; OpenZiti's tunneler also serves them) with, per intercepted service, `ip daddr {…} tcp
// dport {…} redirect to :<listener port>` for the addresses its config names, and `ip daddr @<set> …` for the
// addresses handed out to names under its wildcards. The whole table is replaced in one `nft -f` transaction when
// the services change, so a change never leaves a moment without rules or with half of them; a wildcard name coming
// or going only adds or deletes set elements (nftElementsScript), so its cost does not grow with the names already
// there. Pure: rules in, script out.
import type { PortRange } from './intercept-plan.ts';

export interface RedirectRule {
  readonly service: string;
  /** IPv4 addresses and CIDRs. */
  readonly addresses: readonly string[];
  readonly ports: readonly PortRange[];
  /** The listener on 127.0.0.1 that takes the connections. */
  readonly listenPort: number;
  /** The named set holding the addresses of the names under the service's wildcards. */
  readonly wildcardSet?: { readonly name: string; readonly addresses: readonly string[] };
}

/** Elements to add to and delete from one named set. */
export interface SetChange {
  readonly set: string;
  readonly add: readonly string[];
  readonly remove: readonly string[];
}

/** An nft table name for this router: letters, digits and underscores. */
export function nftTableName(routerId: string): string {
  return `edgeward_${routerId.replace(/[^A-Za-z0-9]/g, '_').slice(0, 40)}`;
}

export function nftReplaceScript(table: string, rules: readonly RedirectRule[]): string {
  const lines = [`table ip ${table}`, `delete table ip ${table}`, `table ip ${table} {`];
  for (const rule of rules) {
    if (!rule.wildcardSet || rule.ports.length === 0) continue;
    const elements = rule.wildcardSet.addresses.length > 0 ? [`    elements = { ${rule.wildcardSet.addresses.join(', ')} }`] : [];
    lines.push(`  set ${rule.wildcardSet.name} {`, '    type ipv4_addr', ...elements, '  }');
  }
  lines.push('  chain output {', '    type nat hook output priority -100; policy accept;');
  for (const rule of rules) {
    if (rule.ports.length === 0) continue;
    const ports = rule.ports.map((range) => (range.low === range.high ? `${range.low}` : `${range.low}-${range.high}`));
    const action = `tcp dport { ${ports.join(', ')} } redirect to :${rule.listenPort} comment "${rule.service.replace(/[^A-Za-z0-9 ._:-]/g, '_').slice(0, 100)}"`;
    if (rule.addresses.length > 0) lines.push(`    ip daddr { ${rule.addresses.join(', ')} } ${action}`);
    if (rule.wildcardSet) lines.push(`    ip daddr @${rule.wildcardSet.name} ${action}`);
  }
  lines.push('  }', '}');
  return `${lines.join('\n')}\n`;
}

/** One transaction that adds and deletes set elements (empty when there is nothing to change). */
export function nftElementsScript(table: string, changes: readonly SetChange[]): string {
  const lines: string[] = [];
  for (const change of changes) {
    if (change.remove.length > 0) lines.push(`delete element ip ${table} ${change.set} { ${change.remove.join(', ')} }`);
    if (change.add.length > 0) lines.push(`add element ip ${table} ${change.set} { ${change.add.join(', ')} }`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export function nftDeleteScript(table: string): string {
  return `table ip ${table}\ndelete table ip ${table}\n`;
}
