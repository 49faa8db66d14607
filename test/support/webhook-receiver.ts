// The webhook receiver an end-to-end test runs in place of a paging service: an HTTP server that records every
// notification Alertmanager sends it (payload version 4), with the path it came on (pages and warnings go to
// different paths) and when it arrived, so the test can wait for a page, a warning or a resolution, and assert that
// none came.
import { createServer, type Server } from 'node:http';
import { parseNotification, type WebhookAlert, type WebhookNotification } from '../../alerts/pager/webhook-payload.ts';

export interface ReceivedNotification {
  /** Date.now() when it arrived. */
  readonly at: number;
  readonly path: string;
  readonly notification: WebhookNotification;
}

/** One alert of a notification, with where and when the notification arrived. */
export interface ReceivedAlertNotice extends WebhookAlert {
  readonly at: number;
  readonly path: string;
  readonly receiver: string;
}

export class WebhookReceiver {
  readonly notifications: ReceivedNotification[] = [];
  /** Bodies that were not notifications: a receiver that gets one has found a bug. */
  readonly refused: string[] = [];
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: ReturnType<typeof parseNotification>;
        try {
          parsed = parseNotification(JSON.parse(text));
        } catch (error) {
          parsed = { ok: false, reason: (error as Error).message };
        }
        if (request.method !== 'POST' || !parsed.ok) {
          this.refused.push(`${request.method} ${request.url}: ${parsed.ok ? 'not a POST' : parsed.reason}: ${text.slice(0, 200)}`);
          response.writeHead(400).end();
          return;
        }
        this.notifications.push({ at: Date.now(), path: request.url ?? '', notification: parsed.notification });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Every alert of every notification received on `path` (all paths when unset), oldest first. */
  alerts(path?: string): ReceivedAlertNotice[] {
    return this.notifications
      .filter((received) => path === undefined || received.path === path)
      .flatMap((received) => received.notification.alerts.map((alert) => ({ ...alert, at: received.at, path: received.path, receiver: received.notification.receiver })));
  }

  /** Waits until `find` returns something for what was received, or fails naming `what` and what did arrive. */
  async waitFor<T>(what: string, find: (receiver: WebhookReceiver) => T | undefined, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find(this);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${Math.round(timeoutMs / 1000)} s; received:\n${this.describe()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** One line per alert received, for failure messages. */
  describe(since = 0): string {
    return (
      this.alerts()
        .filter((alert) => alert.at >= since)
        .map((alert) => `${new Date(alert.at).toISOString()} ${alert.path} ${alert.status} ${JSON.stringify(alert.labels)} startsAt ${alert.startsAt}`)
        .join('\n') || '(nothing)'
    );
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
