import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Proposal, Proposer } from '../raft/state-machine.ts';
import { ControllerTracing } from './controller-tracing.ts';

function tracingWithExporter() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracing: new ControllerTracing(provider), spans: () => exporter.getFinishedSpans(), provider };
}

const byName = (spans: readonly ReadableSpan[], name: string): ReadableSpan => {
  const found = spans.find((span) => span.name === name);
  assert.ok(found, `no span ${name} among ${spans.map((span) => span.name).join(', ')}`);
  return found;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

test('a request span continues the client\'s traceparent and is named after the route template it matched', async () => {
  const { tracing, spans } = tracingWithExporter();
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const request = tracing.startRequest('GET', '/edge/management/v1/identities/abc', { traceparent: `00-${traceId}-00f067aa0ba902b7-01` }, 'req-1');
  await request.run(async () => undefined);
  request.end('/edge/management/v1/identities/:id', 200);
  const failing = tracing.startRequest('POST', '/nowhere', {}, 'req-2');
  failing.end(undefined, 503);
  const [matched, unmatched] = spans() as [ReadableSpan, ReadableSpan];
  assert.equal(matched.name, 'GET /edge/management/v1/identities/:id');
  assert.equal(matched.kind, SpanKind.SERVER);
  assert.equal(matched.spanContext().traceId, traceId);
  assert.equal(parentOf(matched), '00f067aa0ba902b7');
  assert.equal(matched.attributes['http.route'], '/edge/management/v1/identities/:id');
  assert.equal(matched.attributes['http.response.status_code'], 200);
  assert.equal(unmatched.name, 'POST', 'no route: the method alone');
  assert.equal(unmatched.status.code, SpanStatusCode.ERROR);
  assert.notEqual(unmatched.spanContext().traceId, traceId, 'a request without traceparent starts its own trace');
});

test('a forwarded write is one trace: request, forward, the leader\'s serve, propose, commit and apply', async () => {
  const follower = tracingWithExporter();
  const leader = tracingWithExporter();
  const command = { type: 'identity.create' };
  const leaderProposer = leader.tracing.proposer({
    propose: async (proposed): Promise<Proposal> => {
      // What the raft node does with a traced proposal: append, commit, apply.
      const entry = leader.tracing.appended(proposed, 42);
      assert.ok(entry, 'the proposal is known by its command object');
      entry.committed();
      entry.applied();
      return { index: 42, result: { ok: true } };
    },
    appliedIndex: () => 42,
    close: async () => undefined,
  } satisfies Proposer);

  const request = follower.tracing.startRequest('POST', '/edge/management/v1/identities', {}, 'req-1');
  await request.run(async () => {
    const answer = await follower.tracing.forward('ctrl1', (carrier) => leader.tracing.serveForwarded(carrier, 'ctrl2', () => leaderProposer.propose(command)));
    await follower.tracing.followerApply(answer.index, async () => undefined);
  });
  request.end('/edge/management/v1/identities', 201);

  const followerSpans = follower.spans();
  const leaderSpans = leader.spans();
  const http = byName(followerSpans, 'POST /edge/management/v1/identities');
  const forward = byName(followerSpans, 'raft.forward');
  const followerApply = byName(followerSpans, 'raft.follower_apply');
  const serve = byName(leaderSpans, 'raft.forward.serve');
  const propose = byName(leaderSpans, 'raft.propose');
  const commit = byName(leaderSpans, 'raft.commit');
  const apply = byName(leaderSpans, 'raft.apply');
  const traceId = http.spanContext().traceId;
  for (const span of [forward, followerApply, serve, propose, commit, apply]) assert.equal(span.spanContext().traceId, traceId, span.name);
  assert.equal(forward.kind, SpanKind.CLIENT);
  assert.equal(serve.kind, SpanKind.SERVER);
  assert.equal(parentOf(forward), http.spanContext().spanId);
  assert.equal(parentOf(followerApply), http.spanContext().spanId);
  assert.equal(parentOf(serve), forward.spanContext().spanId);
  assert.equal(parentOf(propose), serve.spanContext().spanId);
  assert.equal(parentOf(commit), propose.spanContext().spanId);
  assert.equal(parentOf(apply), propose.spanContext().spanId);
  assert.equal(propose.attributes['raft.index'], 42);
  assert.equal(apply.attributes['raft.index'], 42);
  assert.equal(leader.tracing.appended(command, 43), undefined, 'a finished proposal is forgotten');
});

test('a proposal that is refused ends its spans with an error; an untraced command gets no spans', async () => {
  const { tracing, spans } = tracingWithExporter();
  const command = { type: 'identity.create' };
  const proposer = tracing.proposer({
    propose: async (proposed) => {
      tracing.appended(proposed, 7)?.refused('timeout');
      throw new Error('raft: index 7 was not committed within 5000 ms');
    },
    appliedIndex: () => 0,
    close: async () => undefined,
  });
  await assert.rejects(proposer.propose(command));
  const [commit, propose] = spans() as [ReadableSpan, ReadableSpan];
  assert.equal(commit.name, 'raft.commit');
  assert.equal(commit.status.code, SpanStatusCode.ERROR);
  assert.equal(propose.status.code, SpanStatusCode.ERROR);
  assert.equal(tracing.appended({ type: 'never.proposed' }, 8), undefined);
  assert.equal(spans().length, 2);
});

test('a leader given a malformed trace context starts a new trace instead of failing the write', async () => {
  const { tracing, spans } = tracingWithExporter();
  assert.equal(await tracing.serveForwarded({ traceparent: 'garbage' }, 'ctrl2', async () => 'done'), 'done');
  assert.equal(await tracing.serveForwarded(undefined, 'ctrl2', async () => 'done'), 'done');
  assert.equal(spans().length, 2);
  assert.ok(spans().every((span) => span.parentSpanContext === undefined));
});
