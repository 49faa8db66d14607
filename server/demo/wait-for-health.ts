// Polls a controller's or router's health-checks API over HTTPS until it answers healthy, or gives up with the reason.
import { httpsJson } from './https-json.ts';

export async function waitForHealthy(url: string, caPem: string, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`the process serving ${url} exited before it became healthy`);
    try {
      const { status, json } = await httpsJson(url, { ca: caPem, timeoutMs: 2000 });
      if (status === 200 && (json as { data?: { healthy?: boolean } } | undefined)?.data?.healthy === true) return;
      last = `HTTP ${status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become healthy within ${timeoutMs} ms (${last})`);
}
