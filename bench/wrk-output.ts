// Reads one wrk run's figures from its stdout: the `BENCH_RESULT {json}` line that bench/wrk/bench.lua prints from
// wrk's done() hook, and the `BENCH_STATUSES {json}` line of bench/wrk/status-counts.lua when there is one. Pure:
// text in, figures out, or an error naming what is missing.

export interface WrkFigures {
  readonly requests: number;
  readonly durationSeconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Bytes wrk read (after TLS: status lines, headers and bodies), over all requests. */
  readonly bytes: number;
  /** Responses wrk counts as errors: HTTP status 400 and above (2xx and 3xx pass). */
  readonly httpErrors: number;
  /** Connect, read and write errors and timeouts: requests that got no response at all. */
  readonly socketErrors: number;
  /** Responses by HTTP status, when the script counted them (bench/wrk/status-counts.lua). */
  readonly statuses?: Readonly<Record<string, number>>;
}

const marker = 'BENCH_RESULT ';
const statusesMarker = 'BENCH_STATUSES ';

/** The BENCH_STATUSES line's counts, undefined without one. */
function parseStatuses(stdout: string): Record<string, number> | undefined {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(statusesMarker));
  if (line === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(line.slice(statusesMarker.length));
  } catch (error) {
    throw new Error(`wrk ${statusesMarker.trim()} line is not JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`wrk ${statusesMarker.trim()} is not an object of counts`);
  const counts: Record<string, number> = {};
  for (const [status, count] of Object.entries(raw)) {
    if (!/^[1-5]\d\d$/.test(status) || typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw new Error(`wrk ${statusesMarker.trim()} has a bad entry "${status}": ${JSON.stringify(count)}`);
    counts[status] = count;
  }
  return counts;
}

export function parseWrkOutput(stdout: string): WrkFigures {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(marker));
  if (line === undefined) throw new Error(`wrk output has no ${marker.trim()} line (was bench/wrk/bench.lua passed with -s?)`);
  let raw: unknown;
  try {
    raw = JSON.parse(line.slice(marker.length));
  } catch (error) {
    throw new Error(`wrk ${marker.trim()} line is not JSON: ${(error as Error).message}`);
  }
  const number = (path: string): number => {
    const value = path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), raw);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`wrk ${marker.trim()} has no valid "${path}"`);
    return value;
  };
  const requests = number('requests');
  const durationUs = number('durationUs');
  if (durationUs === 0) throw new Error(`wrk ${marker.trim()} reports a zero duration`);
  const ms = (path: string) => number(path) / 1000;
  const statuses = parseStatuses(stdout);
  return {
    ...(statuses === undefined ? {} : { statuses }),
    requests,
    durationSeconds: durationUs / 1e6,
    requestsPerSecond: requests / (durationUs / 1e6),
    p50Ms: ms('latencyUs.p50'),
    p90Ms: ms('latencyUs.p90'),
    p99Ms: ms('latencyUs.p99'),
    maxMs: ms('latencyUs.max'),
    bytes: number('bytes'),
    httpErrors: number('errors.status'),
    socketErrors: number('errors.connect') + number('errors.read') + number('errors.write') + number('errors.timeout'),
  };
}
