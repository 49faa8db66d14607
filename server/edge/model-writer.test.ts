// How refusals from the cluster reach API clients: each kind of refusal becomes its documented error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimitedError } from '../cluster/rate-limiter.ts';
import { ProposalRefusedError, type Proposer } from '../raft/state-machine.ts';
import { EdgeError } from './edge-error.ts';
import { ModelWriter } from './model-writer.ts';

const refusing = (error: Error): Proposer => ({ propose: async () => Promise.reject(error), appliedIndex: () => 0, close: async () => undefined });
const write = (error: Error) => new ModelWriter(refusing(error)).write({ type: 'raft.noop' });

test('refusals map to the documented API errors', async () => {
  const cases: Array<[Error, string]> = [
    [new ProposalRefusedError('no-leader', 'ClusterHasNoLeaderError'), 'CLUSTER_NO_LEADER'],
    [new ProposalRefusedError('read-only', 'read-only'), 'CLUSTER_READ_ONLY'],
    [new ProposalRefusedError('timeout', 'slow'), 'TIMEOUT'],
    [new RateLimitedError(5, 5, 0), 'SERVER_TOO_MANY_REQUESTS'],
  ];
  for (const [error, code] of cases) {
    await assert.rejects(write(error), (thrown: EdgeError) => thrown.code === code, code);
  }
});

test('a command refused by the model keeps its code and cause', async () => {
  const proposer: Proposer = { propose: async () => ({ index: 7, result: { ok: false, error: { code: 'COULD_NOT_VALIDATE', cause: { field: 'name', reason: 'taken' } } } }), appliedIndex: () => 7, close: async () => undefined };
  await assert.rejects(new ModelWriter(proposer).write({ type: 'raft.noop' }), (thrown: EdgeError) => thrown.code === 'COULD_NOT_VALIDATE' && (thrown.cause as { field: string }).field === 'name');
});

test('a refusal code outside the closed list (a newer peer, or a name on Object.prototype) becomes UNHANDLED', async () => {
  for (const code of ['SOME_FUTURE_CODE', 'constructor', 'toString']) {
    const proposer: Proposer = { propose: async () => ({ index: 8, result: { ok: false, error: { code } } }), appliedIndex: () => 8, close: async () => undefined };
    await assert.rejects(new ModelWriter(proposer).write({ type: 'raft.noop' }), (thrown: EdgeError) => thrown instanceof EdgeError && thrown.code === 'UNHANDLED', code);
  }
});
