// A stand-in for Alertmanager's v2 API in tests: records every `POST /api/v2/alerts` with the time it arrived, and
// answers 200, or whatever status the test sets, or not at all (stopped, then started again on the same port).
import { createServer } from 'node:http';
import type { Server } from 'node:http';

export interface ReceivedAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: string;
  readonly endsAt?: string;
}

export interface ReceivedPost {
  /** Date.now() when the request arrived. */
  readonly at: number;
  /** The status it was answered with. */
  readonly status: number;
  readonly alerts: readonly ReceivedAlert[];
}

export class FakeAlertmanager {
  readonly posts: ReceivedPost[] = [];
  /** The status the next POSTs get; 200 accepts them. */
  status = 200;
  private server: Server | undefined;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Alerts from the accepted POSTs, oldest first. */
  get accepted(): ReceivedAlert[] {
    return this.posts.filter((post) => post.status === 200).flatMap((post) => post.alerts);
  }

  /** Listens on `port` (0: a free one; the same one again after a stop). */
  async start(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/api/v2/alerts') {
          res.writeHead(404).end();
          return;
        }
        const status = this.status;
        this.posts.push({ at: Date.now(), status, alerts: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedAlert[] });
        res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '' : '{"message":"not now"}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    const address = server.address();
    if (typeof address === 'object' && address) this.port = address.port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until `check` holds for the posts received, or fails after `timeoutMs`. */
  async waitFor(check: (posts: readonly ReceivedPost[]) => boolean, timeoutMs = 10_000, what = 'the expected POSTs'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this.posts)) {
      if (Date.now() > deadline) throw new Error(`Alertmanager did not receive ${what} within ${timeoutMs} ms; it got ${JSON.stringify(this.posts, null, 1).slice(0, 4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
