// The tproxy nameserver over real UDP on loopback, as a local user flooding it sees it, with `nft` and `ip` recorded
// instead of run (test/tproxy.test.ts runs them for real, as root): names made up under a wildcard hold at most
// `maxWildcardNames` addresses (the least recently asked give theirs up), so neither the range nor the ruleset
// grows without limit; a new name adds one set element instead of rewriting the whole table, and a burst of new names
// costs a few `nft` runs, not one per name.
import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { test } from 'node:test';
import type { EdgeModel } from '../../common/control-channel/control-messages.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { freePort } from '../../test/support/free-port.ts';
import { TproxyInterceptor } from './tproxy-interceptor.ts';

const model: EdgeModel = {
  services: [{ id: 's1', name: 'web', roleAttributes: ['web'], configs: { 'intercept.v1': { protocols: ['tcp'], addresses: ['web.ziti', '*.apps.ziti'], portRanges: [{ low: 80, high: 80 }] } } }],
  identities: [],
  servicePolicies: [{ id: 'p1', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#clients'], serviceRoles: ['#web'] }],
  edgeRouters: [{ id: 'r1', name: 'r1', roleAttributes: ['clients'], isTunnelerEnabled: true }],
};

/** What nft would hold after the scripts run: the addresses redirected, by whole-table replaces and set changes. */
class FakeNft {
  readonly scripts: string[] = [];
  private fixed = new Set<string>();
  private sets = new Map<string, Set<string>>();

  run(script: string): void {
    this.scripts.push(script);
    if (script.includes('delete table')) {
      this.fixed = new Set([...script.matchAll(/ip daddr \{ ([^}]*) \}/g)].flatMap((match) => match[1]!.split(', ')));
      this.sets = new Map([...script.matchAll(/set (\w+) \{\n\s+type ipv4_addr\n(?:\s+elements = \{ ([^}]*) \}\n)?/g)].map((match) => [match[1]!, new Set(match[2] ? match[2].split(', ') : [])]));
      return;
    }
    for (const [, verb, set, elements] of script.matchAll(/^(add|delete) element ip \w+ (\w+) \{ ([^}]*) \}$/gm)) {
      const held = this.sets.get(set!);
      assert.ok(held, `no set ${set}`);
      for (const address of elements!.split(', ')) {
        // As nft does: a transaction deleting an element that is not there, or adding one twice, fails.
        assert.equal(held.has(address), verb === 'delete', `${verb} ${address} in ${set}`);
        if (verb === 'add') held.add(address);
        else held.delete(address);
      }
    }
  }

  redirected(): Set<string> {
    return new Set([...this.fixed, ...[...this.sets.values()].flatMap((set) => [...set])]);
  }
}

async function startNameserver(options: { dnsSvcIpRange: string; maxWildcardNames?: number; nftMs?: number }) {
  const port = await freePort();
  const nft = new FakeNft();
  const logger = createMemoryLogger();
  const interceptor = new TproxyInterceptor({
    routerId: 'r1',
    resolver: `udp://127.0.0.1:${port}`,
    dnsSvcIpRange: options.dnsSvcIpRange,
    target: { dial: async (_service, socket) => void socket.destroy() },
    logger,
    ...(options.maxWildcardNames === undefined ? {} : { maxWildcardNames: options.maxWildcardNames }),
    run: async (command, _args, input) => {
      if (command !== 'nft') return;
      await new Promise((resolve) => setTimeout(resolve, options.nftMs ?? 1));
      nft.run(input ?? '');
    },
  });
  await interceptor.start();
  await interceptor.modelChanged(model);
  const resolver = new Resolver({ timeout: 5000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  return { interceptor, scripts: nft.scripts, logger, redirected: () => nft.redirected(), ask: async (name: string) => (await resolver.resolve4(name))[0]! };
}

test('names made up under a wildcard hold at most maxWildcardNames addresses: the least recently asked give theirs up, spelled-out names keep theirs', async () => {
  // A /26 has 59 addresses for names: today 200 made-up names use it up and the service's own names are refused.
  const env = await startNameserver({ dnsSvcIpRange: '10.77.0.1/26', maxWildcardNames: 20 });
  try {
    const web = await env.ask('web.ziti');
    const kept = await env.ask('kept.apps.ziti');
    const first = await env.ask('n0.apps.ziti');
    for (let i = 1; i < 200; i++) {
      const runs = env.scripts.length;
      await env.ask(`n${i}.apps.ziti`);
      const script = env.scripts.slice(runs).join('');
      // A new name changes set elements only (one added, and one deleted once at the cap): the update stays small.
      assert.ok(script.length < 200 && !script.includes('delete table'), `n${i}: ${script}`);
      if (i % 5 === 0) assert.equal(await env.ask('kept.apps.ziti'), kept, 'a name asked again and again keeps its address');
    }
    assert.equal(await env.ask('web.ziti'), web, 'a name the config spells out is never given up');
    assert.equal(env.interceptor['pool']!.wildcardNames, 20);
    const rules = env.redirected();
    assert.ok(rules.size <= 21, `the ruleset redirects ${rules.size} addresses, at most the cap and web.ziti`);
    assert.ok(rules.has(web) && rules.has(kept));
    const again = await env.ask('n0.apps.ziti');
    assert.ok(env.redirected().has(again), 'an evicted name asked again gets an address with its rule');
    assert.ok(first !== undefined);
    const warnings = env.logger.lines.filter((line) => line.msg === 'tproxy wildcard names at their cap: the least recently asked give up their addresses');
    assert.equal(warnings.length, 1, 'one line, not one per name');
    assert.equal(warnings[0]!.maxWildcardNames, 20);
  } finally {
    await env.interceptor.stop();
  }
});

test('a burst of new names under a wildcard is applied in a few nft runs, and each answer waits for its rule', async () => {
  const env = await startNameserver({ dnsSvcIpRange: '10.78.0.1/20', nftMs: 30 });
  try {
    const before = env.scripts.length;
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const address = await env.ask(`burst${i}.apps.ziti`);
        // The answer is sent after the ruleset holding its address was applied.
        assert.ok(env.redirected().has(address), `burst${i}: ${address} has its rule when answered`);
        return address;
      }),
    );
    assert.equal(new Set(answers).size, 200, 'each name its own address');
    const runs = env.scripts.length - before;
    assert.ok(runs <= 10, `${runs} nft runs for 200 new names`);
    assert.ok(answers.every((address) => env.redirected().has(address)));
  } finally {
    await env.interceptor.stop();
  }
});
