// How refusals from the cluster reach API clients: each kind of refusal becomes its documented error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimitedError } from '../cluster/rate-limiter.ts';
import { ProposalRefusedError, type Proposer } from '../raft/state-machine.ts';
import { ApiError } from '../web/api-error.ts';
import { ModelWriter } from './model-writer.ts';

const refusing = (error: Error): Proposer => ({ propose: async () => Promise.reject(error), appliedIndex: () => 0, close: async () => undefined });
const write = (error: Error) => new ModelWriter(refusing(error)).write({ type: 'raft.noop' });

test('refusals map to the documented API errors', async () => {
  const cases: Array<[Error, string, number]> = [
    [new ProposalRefusedError('no-leader', 'ClusterHasNoLeaderError'), 'CLUSTER_NO_LEADER', 503],
    [new ProposalRefusedError('read-only', 'read-only'), 'CLUSTER_READ_ONLY', 503],
    [new ProposalRefusedError('timeout', 'slow'), 'TIMEOUT', 503],
    [new RateLimitedError(5, 5, 0), 'SERVER_TOO_MANY_REQUESTS', 429],
  ];
  for (const [error, code, status] of cases) {
    await assert.rejects(write(error), (thrown: ApiError) => thrown.code === code && thrown.status === status, code);
  }
  await assert.rejects(write(new ProposalRefusedError('read-only', 'x')), (thrown: ApiError) => thrown.message === 'unable to execute command. In a readonly state: different versions detected in cluster');
});

test('a command refused by the model keeps its code and cause', async () => {
  const proposer: Proposer = { propose: async () => ({ index: 7, result: { ok: false, error: { code: 'COULD_NOT_VALIDATE', cause: { field: 'name', reason: 'taken' } } } }), appliedIndex: () => 7, close: async () => undefined };
  await assert.rejects(new ModelWriter(proposer).write({ type: 'raft.noop' }), (thrown: ApiError) => thrown.code === 'COULD_NOT_VALIDATE' && (thrown.cause as { field: string }).field === 'name');
});
