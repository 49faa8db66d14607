// A stand-in OpenTelemetry collector for tests: a plain HTTP server on 127.0.0.1 that takes OTLP/HTTP JSON posts
// (`/v1/traces`, and anything else a misconfigured exporter might send), keeps every request, and counts the
// connections made to it at all.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
}

/** One span as a test looks at it, with the resource attributes of the process that sent it. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly resource: Readonly<Record<string, unknown>>;
}

type KeyValue = { key: string; value: Record<string, unknown> };

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  return out;
}

export class OtlpReceiver {
  readonly requests: ReceivedRequest[] = [];
  connections = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('connection', () => receiver.connections++);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receiver.requests.push({ method: req.method ?? '', path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Every span of every JSON post to /v1/traces so far. */
  spans(): ReceivedSpan[] {
    const spans: ReceivedSpan[] = [];
    for (const request of this.requests) {
      if (request.path !== '/v1/traces' || request.method !== 'POST') continue;
      const body = JSON.parse(request.body) as { resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: String(span.traceId),
              spanId: String(span.spanId),
              parentSpanId: String(span.parentSpanId ?? ''),
              name: String(span.name),
              kind: Number(span.kind),
              attributes: attributesOf(span.attributes as KeyValue[] | undefined),
              resource,
            });
          }
        }
      }
    }
    return spans;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
