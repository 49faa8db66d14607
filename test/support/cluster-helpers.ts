// Shared by the cross-process cluster tests: polling with a bound, and agent calls that fail loudly.
import { callAgent } from '../../server/agent/agent-client.ts';
import type { MemberRow } from '../../server/cluster/cluster-service.ts';
import { initPki } from '../../common/pki/pki-directory.ts';
import { ControllerFixture } from './controller-fixture.ts';

/** Polls `probe` until it returns something truthy (errors count as not yet), or fails naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch((error: unknown) => {
        lastError = error;
        return undefined;
      });
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs an agent command on a controller; a refusal throws with the controller's message. */
export async function agent(node: ControllerFixture, command: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const response = await callAgent(node.agentSocket, command, args, 60_000);
  if (!response.ok) throw new Error(`${command} on ${node.id}: ${response.error}`);
  return response.result;
}

export const memberList = (node: ControllerFixture) => agent(node, 'cluster.list') as Promise<MemberRow[]>;

/** Three controllers (ctrl1..ctrl3) on one new PKI in `pkiDir`: ctrl1 initialized and adding the other two as voters.
 * `editConfig` changes each controller's config text (given its id) before it starts. */
/** A controller config with `cluster.raftThread: true`: raft, its log and the control port on their own thread. */
export function withRaftThread(yaml: string): string {
  if (!/\ncluster:\n/.test(yaml)) throw new Error('the config has no cluster section');
  return yaml.replace(/\ncluster:\n/, '\ncluster:\n  raftThread: true\n');
}

export async function threeControllerCluster(pkiDir: string, options: { editConfig?: (yaml: string, id: string) => string } = {}): Promise<ControllerFixture[]> {
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  const edit = (id: string) => (options.editConfig ? { editConfig: (yaml: string) => options.editConfig!(yaml, id) } : {});
  const first = await ControllerFixture.create({ pkiDir, id: 'ctrl1', ...edit('ctrl1') });
  const second = await ControllerFixture.create({ pkiDir, id: 'ctrl2', initAdmin: false, ...edit('ctrl2') });
  const third = await ControllerFixture.create({ pkiDir, id: 'ctrl3', initAdmin: false, ...edit('ctrl3') });
  await agent(first, 'cluster.add', { address: second.ctrlAddress, voter: true });
  await agent(first, 'cluster.add', { address: third.ctrlAddress, voter: true });
  await until('three connected voters', async () => {
    const list = await memberList(first);
    return list.length === 3 && list.every((row) => row.connected && row.voter);
  });
  return [first, second, third];
}
