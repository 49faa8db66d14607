// The spans of one controller, made only when tracing is on. A controller without a tracer provider has no
// ControllerTracing at all, and every traced path checks for its absence once: with tracing off there is no span,
// no context and no AsyncLocalStorage, and a request pays nothing.
//
//   `<METHOD> <route template>`  SERVER    an HTTP request (continuing the client's `traceparent` when it sent one)
//   raft.forward                 CLIENT    a follower forwarding a write to the leader over its peer channel
//   raft.forward.serve           SERVER    the leader taking that write, a child of the follower's raft.forward
//   raft.propose                 INTERNAL  the leader ordering a command: rate limiter, log append, commit, apply
//   raft.commit                  INTERNAL  from the entry's append to its commit by a quorum
//   raft.apply                   INTERNAL  the leader applying the batch that holds the entry to its model
//   raft.follower_apply          INTERNAL  the forwarding follower waiting until it has applied the entry too
//
// How a parent reaches its children: within a request through this object's own AsyncLocalStorage (not a
// process-global context manager, so several controllers in one test process keep theirs apart); across the peer
// channel as a W3C `traceparent` in the forwarded proposal; and past the rate limiter, whose queue may start a
// command from another request's continuation, by the command object itself, which the raft node hands back
// when it appends the entry (proposal-tracer.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { ProposalTrace, ProposalTracer } from '../raft/node/proposal-tracer.ts';
import type { LogCommand, Proposal, Proposer } from '../raft/state-machine.ts';
import { formatTraceparent, parseTraceparent } from './traceparent.ts';

/** A span context as it travels in a forwarded proposal. */
export interface TraceCarrier {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** One HTTP request's server span (web/error-handler.ts). */
export interface TracedRequest {
  /** Runs the request's handlers with its span as their parent. */
  run(work: () => Promise<void>): Promise<void>;
  /** Names the span after the route template (none: no route matched) and ends it. */
  end(route: string | undefined, status: number): void;
}

export class ControllerTracing implements ProposalTracer {
  private readonly tracer: Tracer;
  private readonly active = new AsyncLocalStorage<Context>();
  /** The context of each proposal in flight on this leader, by command object, until the node appends it. */
  private readonly proposals = new WeakMap<LogCommand, Context>();

  constructor(provider: TracerProvider) {
    this.tracer = provider.getTracer('edgeward-controller');
  }

  // ---- HTTP --------------------------------------------------------------------------------------------------

  startRequest(method: string, path: string, headers: IncomingHttpHeaders, requestId: string): TracedRequest {
    const parent = remoteParent(headers.traceparent, headers.tracestate);
    const span = this.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path, 'edgeward.request_id': requestId } }, parent);
    const context = trace.setSpan(parent, span);
    return {
      run: (work) => this.active.run(context, work),
      end: (route, status) => {
        if (route !== undefined) {
          span.updateName(`${method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  // ---- a write forwarded from a follower ---------------------------------------------------------------------

  /** The follower's side: `send` forwards inside a client span and gets the context to carry to the leader. */
  forward<T>(leader: string, send: (carrier: TraceCarrier) => Promise<T>): Promise<T> {
    const span = this.tracer.startSpan('raft.forward', { kind: SpanKind.CLIENT, attributes: { 'raft.leader_id': leader } }, this.current());
    return ended(span, () => send({ traceparent: formatTraceparent(span.spanContext()) }));
  }

  /** The leader's side: `work` runs in a server span that continues the follower's trace, when it sent one. */
  serveForwarded<T>(carrier: unknown, from: string, work: () => Promise<T>): Promise<T> {
    const received = carrier as Partial<TraceCarrier> | undefined;
    const parent = remoteParent(received?.traceparent, received?.tracestate);
    const span = this.tracer.startSpan('raft.forward.serve', { kind: SpanKind.SERVER, attributes: { 'raft.follower_id': from } }, parent);
    return this.active.run(trace.setSpan(parent, span), () => ended(span, work));
  }

  /** The follower waits until it has applied the entry the leader committed for it. */
  followerApply<T>(index: number, work: () => Promise<T>): Promise<T> {
    return ended(this.tracer.startSpan('raft.follower_apply', { attributes: { 'raft.index': index } }, this.current()), work);
  }

  // ---- the leader's proposals ---------------------------------------------------------------------------------

  /** `inner` (the leader's proposer) with a raft.propose span around each proposal, parent of its commit and apply. */
  proposer(inner: Proposer): Proposer {
    return {
      propose: async (command: LogCommand): Promise<Proposal> => {
        const parent = this.current();
        const span = this.tracer.startSpan('raft.propose', { attributes: { 'raft.command': command.type } }, parent);
        this.proposals.set(command, trace.setSpan(parent, span));
        try {
          const proposal = await inner.propose(command);
          span.setAttribute('raft.index', proposal.index);
          if (!proposal.result.ok) span.setAttribute('raft.apply_refused', proposal.result.error.code);
          return proposal;
        } catch (error) {
          failed(span, error);
          throw error;
        } finally {
          this.proposals.delete(command);
          span.end();
        }
      },
      appliedIndex: () => inner.appliedIndex(),
      close: () => inner.close(),
    };
  }

  appended(command: LogCommand, index: number): ProposalTrace | undefined {
    const parent = this.proposals.get(command);
    return parent === undefined ? undefined : new EntrySpans(this.tracer, parent, index);
  }

  private current(): Context {
    return this.active.getStore() ?? ROOT_CONTEXT;
  }
}

/** raft.commit from append to commit, then raft.apply until the entry is applied. */
class EntrySpans implements ProposalTrace {
  private open: Span;
  private applying = false;

  constructor(
    private readonly tracer: Tracer,
    private readonly parent: Context,
    private readonly index: number,
  ) {
    this.open = tracer.startSpan('raft.commit', { attributes: { 'raft.index': index } }, parent);
  }

  committed(): void {
    if (this.applying) return;
    this.open.end();
    this.applying = true;
    this.open = this.tracer.startSpan('raft.apply', { attributes: { 'raft.index': this.index } }, this.parent);
  }

  applied(): void {
    this.open.end();
  }

  refused(reason: string): void {
    this.open.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    this.open.end();
  }
}

function remoteParent(traceparent: unknown, tracestate: unknown): Context {
  const remote = parseTraceparent(traceparent, tracestate);
  return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
}

async function ended<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
