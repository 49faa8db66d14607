// Polls a controller's health-checks API over HTTPS until it answers healthy, or gives up with the reason.
import { request } from 'node:https';

export async function waitForHealthy(url: string, caPem: string, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`the process serving ${url} exited before it became healthy`);
    try {
      const { status, body } = await getOnce(url, caPem);
      if (status === 200 && (JSON.parse(body) as { data?: { healthy?: boolean } }).data?.healthy === true) return;
      last = `HTTP ${status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become healthy within ${timeoutMs} ms (${last})`);
}

function getOnce(url: string, caPem: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: caPem, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
