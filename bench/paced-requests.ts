// Requests (writes, or reads that probe a server) at a steady offered rate, open loop: each is sent when its time
// comes whether or not the earlier ones were answered (so a stalled server shows up as long latencies, not as fewer
// requests), and each one's latency and outcome is kept. `send` resolves true when the request was answered as
// hoped, or says what went wrong; a rejection counts as a failure too.

export interface RequestSample {
  readonly ms: number;
  readonly ok: boolean;
  /** What went wrong, for a failed request. */
  readonly error?: string;
}

export interface PacedRequests {
  /** Stops sending, waits for the requests still in flight, and hands back every one's sample in the order sent. */
  stop(): Promise<RequestSample[]>;
}

/** Starts sending `ratePerSecond` requests a second; `send(n)` sends the n-th (from 0). */
export function pacedRequests(ratePerSecond: number, send: (n: number) => Promise<true | string>): PacedRequests {
  const samples: RequestSample[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1000) * ratePerSecond);
    while (sent < due) {
      const began = performance.now();
      const slot = samples.length;
      samples.push({ ms: Number.NaN, ok: false, error: 'not answered' });
      const done = send(sent++)
        .then(
          (outcome) => void (samples[slot] = outcome === true ? { ms: performance.now() - began, ok: true } : { ms: performance.now() - began, ok: false, error: outcome }),
          (error: Error) => void (samples[slot] = { ms: performance.now() - began, ok: false, error: error.message }),
        )
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    }
  }, 10);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
      return samples;
    },
  };
}
