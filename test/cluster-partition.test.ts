// A client creating entities continuously through the cluster while the leader is killed, and later cut off by
// a TCP proxy: every acknowledged create ends up on every controller, and no name appears twice.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { callAgent } from '../server/agent/agent-client.ts';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { initPki } from '../common/pki/pki-directory.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { until, withRaftThread } from './support/cluster-helpers.ts';
import { freePort } from './support/free-port.ts';
import { TcpProxy } from './support/tcp-proxy.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-partition-pki-'));
const fixtures: ControllerFixture[] = [];
const proxies: TcpProxy[] = [];
after(async () => {
  await Promise.all(fixtures.map((fixture) => fixture.dispose()));
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  rmSync(pkiRoot, { recursive: true, force: true });
});


const members = async (node: ControllerFixture) => {
  const response = await callAgent(node.agentSocket, 'cluster.list', {}, 10_000);
  return response.ok ? (response.result as MemberRow[]) : [];
};

test('no acknowledged create is lost across a leader kill and a leader partition', () => noneLost(['pt1', 'pt2', 'pt3'], false));

test('the same with raft, its log and the control port on their own thread (cluster.raftThread)', () => noneLost(['rt1', 'rt2', 'rt3'], true));

async function noneLost(ids: readonly string[], raftThread: boolean): Promise<void> {
  const pkiDir = join(pkiRoot, raftThread ? 'thread' : 'inline');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  // Peers reach each controller through its own proxy, so the test can cut one off.
  const byId = new Map<string, { node: ControllerFixture; proxy: TcpProxy }>();
  for (const id of ids) {
    const proxyPort = await freePort();
    let proxy: TcpProxy | undefined;
    const node = await ControllerFixture.create({
      pkiDir,
      id,
      initAdmin: id === ids[0],
      editConfig: (yaml) => {
        const listen = /listener: "?tls:127\.0\.0\.1:(\d+)"?/.exec(yaml)![1]!;
        proxy = new TcpProxy(Number(listen));
        const proxied = yaml.replace(/(\n  options:\n)/, `$1    advertiseAddress: tls:127.0.0.1:${proxyPort}\n`);
        return raftThread ? withRaftThread(proxied) : proxied;
      },
    });
    await proxy!.start(proxyPort);
    fixtures.push(node);
    proxies.push(proxy!);
    byId.set(id, { node, proxy: proxy! });
  }
  const [first, second, third] = ids.map((id) => byId.get(id)!.node) as [ControllerFixture, ControllerFixture, ControllerFixture];
  for (const node of [second, third]) assert.ok((await callAgent(first.agentSocket, 'cluster.add', { address: node.ctrlAddress.replace(/:\d+$/, `:${byId.get(node.id)!.proxy.port}`), voter: true }, 60_000)).ok);
  await until('three connected voters', async () => (await members(first)).filter((row) => row.connected).length === 3);

  // The client writes through whichever controller it can reach, retrying elsewhere on failure.
  const acknowledged = new Map<string, string>();
  const unacknowledged = new Set<string>();
  let stop = false;
  let sequence = 0;
  const tokens = new Map<string, string>();
  for (const node of [first, second, third]) tokens.set(node.id, await until(`a login on ${node.id} (the admin replicated)`, () => node.adminToken()));
  const client = (async () => {
    let target = 1;
    while (!stop) {
      const node = [first, second, third][target % 3]!;
      const name = `stream-${sequence++}`;
      try {
        const response = await node.http.post(`${node.managementApi}/identities`, { headers: { 'zt-session': tokens.get(node.id)! }, body: { name, isAdmin: false } });
        if (response.status === 201) acknowledged.set(name, response.json.data.id);
        else {
          unacknowledged.add(name);
          target++;
        }
      } catch {
        unacknowledged.add(name);
        target++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();

  const leaderId = async () => (await members(first.child?.exitCode === null ? first : second)).find((row) => row.leader)?.id;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const killedId = (await until('a leader', leaderId))!;
  const killed = byId.get(killedId)!.node;
  killed.child!.kill('SIGKILL');
  const survivor = [first, second, third].find((node) => node !== killed)!;
  await until('a new leader after the kill', async () => {
    const leader = (await members(survivor)).find((row) => row.leader)?.id;
    return leader && leader !== killedId;
  });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await killed.start();
  tokens.set(killed.id, await until('the killed controller back', () => killed.adminToken()));
  // The mesh is not complete: the leader's view is the authoritative one.
  const leaderView = async () => {
    const leader = (await members(survivor)).find((row) => row.leader)?.id;
    return leader ? members(byId.get(leader)!.node) : [];
  };
  await until('three connected voters again, in the leader\'s view', async () => (await leaderView()).filter((row) => row.connected).length === 3);

  const partitionedId = (await until('the current leader', async () => (await members(survivor)).find((row) => row.leader)?.id))!;
  byId.get(partitionedId)!.proxy.cut();
  const other = [first, second, third].find((node) => node.id !== partitionedId)!;
  await until('a new leader beyond the partition', async () => {
    const leader = (await members(other)).find((row) => row.leader)?.id;
    return leader && leader !== partitionedId;
  });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  byId.get(partitionedId)!.proxy.heal();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  stop = true;
  await client;

  assert.ok(acknowledged.size > 20, `the client kept writing (${acknowledged.size} acknowledged, ${unacknowledged.size} not)`);
  for (const node of [first, second, third]) {
    const token = await until(`a login on ${node.id} after healing`, () => node.adminToken());
    const names = await until(`${node.id} to hold every acknowledged create`, async () => {
      const seen: string[] = [];
      for (let offset = 0; ; offset += 500) {
        const page = await node.http.get(`${node.managementApi}/identities?limit=500&offset=${offset}&filter=${encodeURIComponent('name contains "stream-"')}`, { headers: { 'zt-session': token } });
        seen.push(...page.json.data.map((row: { name: string }) => row.name));
        if (seen.length >= page.json.meta.pagination.totalCount) break;
      }
      return [...acknowledged.keys()].every((name) => seen.includes(name)) ? seen : undefined;
    });
    assert.equal(new Set(names).size, names.length, `${node.id}: no name appears twice`);
    for (const name of names) assert.ok(acknowledged.has(name) || unacknowledged.has(name), `${name} was sent by the client`);
  }
}
