// What the scale benchmark asks a loaded controller: a request timed over and over (list latencies), logins as fast
// as a fixed number in flight allow (password and certificate), an identity enrolled for each method, and a
// controller's memory (RSS from /proc, heap used from its /metrics).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { percentile } from './raft-bench-report.ts';
import type { TimedRequests } from './scale-bench-report.ts';
import type { ProbeClient } from './write-probe.ts';

export type Timed = TimedRequests;

/** GETs `url` one after another (closed loop, one in flight) `count` times or until `seconds` pass. */
export async function timedGets(probe: ProbeClient, url: string, headers: Record<string, string>, count: number, seconds: number): Promise<Timed> {
  const times: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  let totalCount: number | undefined;
  const endsAt = performance.now() + seconds * 1000;
  for (let n = 0; n < count && performance.now() < endsAt; n++) {
    const began = performance.now();
    try {
      const answer = await probe.get(url, headers, 30_000);
      const ms = performance.now() - began;
      if (answer.status !== 200) {
        failed++;
        firstFailure ??= `HTTP ${answer.status} ${answer.text.slice(0, 160)}`;
        continue;
      }
      times.push(ms);
      // Lists answer JSON with a count; /metrics answers text.
      if (totalCount === undefined && answer.text.startsWith('{')) {
        const total = (JSON.parse(answer.text) as { meta?: { pagination?: { totalCount?: unknown } } }).meta?.pagination?.totalCount;
        if (typeof total === 'number') totalCount = total;
      }
    } catch (error) {
      failed++;
      firstFailure ??= (error as Error).message;
    }
  }
  times.sort((a, b) => a - b);
  return {
    requests: times.length + failed,
    failed,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: times.at(-1) ?? 0,
    ...(totalCount === undefined ? {} : { totalCount }),
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

export interface LoginFigures {
  readonly seconds: number;
  readonly logins: number;
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly firstFailure?: string;
}

/** `concurrency` loops each logging in again as soon as answered, for `seconds`. */
export async function loginLoop(login: () => Promise<void>, seconds: number, concurrency: number): Promise<LoginFigures> {
  const times: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const endsAt = started + seconds * 1000;
  const loop = async () => {
    while (performance.now() < endsAt) {
      const began = performance.now();
      try {
        await login();
        if (performance.now() <= endsAt) times.push(performance.now() - began);
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  times.sort((a, b) => a - b);
  return {
    seconds: (Math.min(performance.now(), endsAt) - started) / 1000,
    logins: times.length,
    failed,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

const dataOf = <T>(text: string) => (JSON.parse(text) as { data: T }).data;

/** A dialer with a password: created with a `updb` enrollment and the role attribute given, enrolled at
 * `/enroll/updb`. */
export async function passwordIdentity(probe: ProbeClient, managementApi: string, clientApi: string, session: string, name: string, roleAttributes: string[]): Promise<{ username: string; password: string }> {
  const username = name;
  const password = 'Scale-bench-password-1';
  const created = await probe.post(`${managementApi}/identities`, JSON.stringify({ name, type: 'User', isAdmin: false, roleAttributes, enrollment: { updb: username } }), { 'zt-session': session }, 60_000);
  if (created.status !== 201) throw new Error(`creating ${name}: HTTP ${created.status} ${created.text.slice(0, 200)}`);
  const detail = await probe.get(`${managementApi}/identities/${dataOf<{ id: string }>(created.text).id}`, { 'zt-session': session }, 60_000);
  const token = dataOf<{ enrollment: { updb: { token: string } } }>(detail.text).enrollment.updb.token;
  const enrolled = await probe.post(`${clientApi}/enroll/updb?token=${encodeURIComponent(token)}`, JSON.stringify({ password }), {}, 60_000);
  if (enrolled.status !== 200) throw new Error(`enrolling ${name}: HTTP ${enrolled.status} ${enrolled.text.slice(0, 200)}`);
  return { username, password };
}

/** A device with a certificate: created with an ott enrollment and enrolled with a fresh P-256 key (openssl). */
export async function certIdentity(probe: ProbeClient, managementApi: string, clientApi: string, session: string, name: string, roleAttributes: string[], dir: string): Promise<{ cert: string; key: string }> {
  const created = await probe.post(`${managementApi}/identities`, JSON.stringify({ name, type: 'Device', isAdmin: false, roleAttributes, enrollment: { ott: true } }), { 'zt-session': session }, 60_000);
  if (created.status !== 201) throw new Error(`creating ${name}: HTTP ${created.status} ${created.text.slice(0, 200)}`);
  const detail = await probe.get(`${managementApi}/identities/${dataOf<{ id: string }>(created.text).id}`, { 'zt-session': session }, 60_000);
  const token = dataOf<{ enrollment: { ott: { token: string } } }>(detail.text).enrollment.ott.token;
  const keyFile = join(dir, `${name}.key.pem`);
  const csrFile = join(dir, `${name}.csr.pem`);
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`, '-keyout', keyFile, '-out', csrFile], { stdio: 'ignore', timeout: 30_000 });
  const enrolled = await probe.post(`${clientApi}/enroll/ott?token=${encodeURIComponent(token)}`, readFileSync(csrFile, 'utf8'), { 'content-type': 'application/x-pem-file' }, 60_000);
  if (enrolled.status !== 200) throw new Error(`enrolling ${name}: HTTP ${enrolled.status} ${enrolled.text.slice(0, 200)}`);
  return { cert: dataOf<{ cert: string }>(enrolled.text).cert, key: readFileSync(keyFile, 'utf8') };
}

/** Legacy certificate logins (`POST /authenticate?method=cert`) on a keep-alive mutual-TLS pool. */
export class CertLogin {
  private readonly agent: Agent;

  constructor(ca: string, identity: { cert: string; key: string }, sockets: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, ca, cert: identity.cert, key: identity.key });
  }

  login(clientApi: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request(`${clientApi}/authenticate?method=cert`, { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json', 'content-length': '2' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 160)}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30000 ms')));
      req.end('{}');
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A password login through `clientApi`: its session token. */
export async function passwordLogin(probe: ProbeClient, clientApi: string, credentials: { username: string; password: string }): Promise<string> {
  const answer = await probe.post(`${clientApi}/authenticate?method=password`, JSON.stringify(credentials), {}, 30_000);
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status} ${answer.text.slice(0, 160)}`);
  return dataOf<{ token: string }>(answer.text).token;
}


/** `edgeward_nodejs_heap_used_bytes` from a controller's Prometheus exposition, or undefined. */
export async function heapUsedBytes(probe: ProbeClient, origin: string): Promise<number | undefined> {
  try {
    const answer = await probe.get(`${origin}/metrics`, { accept: 'text/plain' }, 30_000);
    const value = /^edgeward_nodejs_heap_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(answer.text)?.[1];
    return value === undefined ? undefined : Number(value);
  } catch {
    return undefined;
  }
}
