// A storm of certificate logins against the leader of a three-controller cluster: the whole OIDC flow (authorize →
// POST /oidc/login/cert over mutual TLS → callback → POST /oidc/oauth/token with the PKCE verifier) against legacy
// `POST /edge/client/v1/authenticate?method=cert`, taking turns in each round, with a fixed number of logins in
// flight. Meanwhile a steady rate of management writes goes through the leader, each timed (p99), and the leader's raft
// applied index is read before and after each measurement: legacy logins each write an API session (a raft
// command), OIDC logins should write none. Writes its marked section of bench/RESULTS.md and prints the same.
// Everything is bounded by a watchdog; the controllers are stopped and the temp dir removed on success, failure,
// timeout or a signal.
// Env: BENCH_STORM_SECONDS (per measurement, default 10), BENCH_STORM_ROUNDS (1 to 9, default 3),
// BENCH_STORM_CONCURRENCY (logins in flight, default 8), BENCH_STORM_WRITE_RATE (writes/s, default 20).
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request, type RequestOptions } from 'node:https';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchLifecycle } from './bench-lifecycle.ts';
import { positiveInteger, progress, readPreviousResults } from './bench-env.ts';
import { EdgewardCluster } from './edgeward-cluster.ts';
import { percentile } from './raft-bench-report.ts';
import { processCpuSeconds } from './process-cpu.ts';
import { commandsPerLogin, leaderCpuMsPerLogin, loginsPerSecond, renderStormSection, stormSummary, type LoginKind, type StormMeasurement, type StormRound, type StormRun } from './oidc-login-storm-report.ts';
import { ProbeClient } from './write-probe.ts';
import { pacedRequests, type PacedRequests } from './paced-requests.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const resultsFile = join(benchDir, 'RESULTS.md');

const seconds = positiveInteger('BENCH_STORM_SECONDS', 10, 600);
const rounds = positiveInteger('BENCH_STORM_ROUNDS', 3, 9, 'rounds');
const concurrency = positiveInteger('BENCH_STORM_CONCURRENCY', 8, 256, 'logins in flight');
const writeRate = positiveInteger('BENCH_STORM_WRITE_RATE', 20, 1_000, 'writes per second');
const requestTimeoutMs = 15_000;
const redirectUri = 'http://127.0.0.1:20314/auth/callback';

/** Start-up, every measurement with its margins, stopping; bench/run.sh repeats this sum. */
const budgetMs = (180 + rounds * 2 * (seconds + 2 * requestTimeoutMs / 1000 + 10) + 60) * 1000;

const notes = [
  'Choices, and what was not measured: the logins go to the leader, where both flows compete with the writes (against a',
  'follower the legacy ones would wait on the leader to apply their API sessions; not measured here); each login reuses',
  'a keep-alive mutual-TLS connection, so neither flow pays a handshake per login (a fresh connection per login, as a',
  'restarting SDK would, is not measured); an OIDC login makes four requests where the legacy one makes one, and signs',
  'three ES256 tokens (access, refresh, ID).',
].join('\n');

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly text: string;
}

/** HTTPS with the identity's certificate on a keep-alive pool: every login presents it in the handshake. */
class MtlsClient {
  readonly agent: Agent;

  constructor(ca: string, cert: string, key: string) {
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency * 2, ca, cert, key });
  }

  send(method: string, url: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
    const options: RequestOptions = { method, agent: this.agent, headers: { accept: 'application/json', ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } };
    return new Promise((resolve, reject) => {
      const req = request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(requestTimeoutMs, () => req.destroy(new Error(`no answer within ${requestTimeoutMs} ms: ${method} ${url}`)));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function expect(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 160)}`);
}

async function legacyLogin(client: MtlsClient, origin: string): Promise<void> {
  const answer = await client.send('POST', `${origin}/edge/client/v1/authenticate?method=cert`, '{}', { 'content-type': 'application/json' });
  expect(answer, 200, 'authenticate');
  if (!(JSON.parse(answer.text) as { data?: { token?: string } }).data?.token) throw new Error('authenticate: no token');
}

async function oidcLogin(client: MtlsClient, origin: string): Promise<void> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(12).toString('base64url');
  const query = new URLSearchParams({ client_id: 'openziti', response_type: 'code', scope: 'openid offline_access', redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state });
  const authorize = await client.send('GET', `${origin}/oidc/authorize?${query}`);
  expect(authorize, 302, 'authorize');
  const id = /authRequestID=([^&]+)/.exec(authorize.location ?? '')?.[1];
  if (!authorize.location?.includes('/oidc/login/cert') || !id) throw new Error(`authorize: sent to ${authorize.location}`);
  const login = await client.send('POST', `${origin}/oidc/login/cert`, JSON.stringify({ id: decodeURIComponent(id) }), { 'content-type': 'application/json' });
  expect(login, 302, 'login/cert');
  const callback = await client.send('GET', new URL(login.location!, origin).href);
  expect(callback, 302, 'callback');
  const redirect = new URL(callback.location!);
  if (redirect.searchParams.get('state') !== state) throw new Error('callback: wrong state');
  const form = new URLSearchParams({ grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '', redirect_uri: redirectUri, code_verifier: verifier, client_id: 'openziti' });
  const token = await client.send('POST', `${origin}/oidc/oauth/token`, form.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
  expect(token, 200, 'token');
  const tokens = JSON.parse(token.text) as { access_token?: string; refresh_token?: string };
  if (!tokens.access_token || !tokens.refresh_token) throw new Error('token: no access or refresh token');
}

/** Management writes at a steady rate, each on its own, keeping each one's latency and whether it was answered 201. */
function pacedWrites(probe: ProbeClient, url: string, session: string, prefix: string): PacedRequests {
  return pacedRequests(writeRate, (n) =>
    probe.post(url, JSON.stringify({ name: `${prefix}-${n}`, isAdmin: false }), { 'zt-session': session }, requestTimeoutMs).then((answer) => (answer.status === 201 ? true : `HTTP ${answer.status}`)),
  );
}

async function appliedIndex(probe: ProbeClient, origin: string): Promise<number> {
  const answer = await probe.get(`${origin}/metrics`, {}, requestTimeoutMs);
  const match = /^edgeward_raft_applied_index(?:\{[^}]*\})? (\d+)/m.exec(answer.text);
  if (answer.status !== 200 || !match) throw new Error(`no edgeward_raft_applied_index on ${origin}/metrics (HTTP ${answer.status})`);
  return Number(match[1]);
}

async function measure(kind: LoginKind, client: MtlsClient, probe: ProbeClient, origin: string, writeUrl: string, session: string, round: number, leaderPid: number | undefined): Promise<StormMeasurement> {
  const login = kind === 'oidc' ? oidcLogin : legacyLogin;
  const before = await appliedIndex(probe, origin);
  const cpuBefore = processCpuSeconds(leaderPid);
  const writes = pacedWrites(probe, writeUrl, session, `storm-${kind}-${round}-${process.pid}-${Date.now().toString(36)}`);
  const latencies: number[] = [];
  const failureSamples: string[] = [];
  let failures = 0;
  const began = performance.now();
  const deadline = began + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const start = performance.now();
        try {
          await login(client, origin);
          latencies.push(performance.now() - start);
        } catch (error) {
          failures++;
          if (failureSamples.length < 3) failureSamples.push((error as Error).message);
        }
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1000;
  const samples = await writes.stop();
  const cpuAfter = processCpuSeconds(leaderPid);
  // The last logins' and writes' commands are applied by the time their answers came; a scrape now sees them.
  const after = await appliedIndex(probe, origin);
  latencies.sort((a, b) => a - b);
  const writeMs = samples.filter((sample) => sample.ok).map((sample) => sample.ms).sort((a, b) => a - b);
  const measurement: StormMeasurement = {
    kind,
    seconds: elapsed,
    logins: latencies.length,
    failures,
    failureSamples,
    loginP50Ms: percentile(latencies, 0.5),
    loginP99Ms: percentile(latencies, 0.99),
    raftApplied: after - before,
    writesCommitted: writeMs.length,
    writesSent: samples.length,
    writeP99Ms: percentile(writeMs, 0.99),
    ...(cpuBefore !== undefined && cpuAfter !== undefined ? { leaderCpuSeconds: cpuAfter - cpuBefore } : {}),
  };
  progress(`round ${round} ${kind}: ${loginsPerSecond(measurement).toFixed(1)} logins/s (${measurement.logins}, ${failures} failed), p99 ${measurement.loginP99Ms.toFixed(1)} ms; raft +${measurement.raftApplied} (${commandsPerLogin(measurement).toFixed(2)}/login); writes ${measurement.writesCommitted}/${measurement.writesSent}, p99 ${measurement.writeP99Ms.toFixed(1)} ms; leader CPU ${leaderCpuMsPerLogin(measurement)?.toFixed(2) ?? 'n/a'} ms/login`);
  return measurement;
}

/** An identity with a certificate: created with an ott enrollment and enrolled with a fresh P-256 key. */
async function enrolledIdentity(probe: ProbeClient, managementApi: string, clientApi: string, session: string, dir: string): Promise<{ cert: string; key: string }> {
  const created = await probe.post(`${managementApi}/identities`, JSON.stringify({ name: `storm-device-${Date.now().toString(36)}`, type: 'Device', isAdmin: false, enrollment: { ott: true } }), { 'zt-session': session });
  if (created.status !== 201) throw new Error(`creating the identity: HTTP ${created.status} ${created.text}`);
  const id = (JSON.parse(created.text) as { data: { id: string } }).data.id;
  const detail = await probe.get(`${managementApi}/identities/${id}`, { 'zt-session': session });
  const token = (JSON.parse(detail.text) as { data: { enrollment: { ott: { token: string } } } }).data.enrollment.ott.token;
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=storm-device', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'csr.pem')], { stdio: 'ignore', timeout: 30_000 });
  const enrolled = await probe.post(`${clientApi}/enroll/ott?token=${encodeURIComponent(token)}`, readFileSync(join(dir, 'csr.pem'), 'utf8'), { 'content-type': 'application/x-pem-file' });
  if (enrolled.status !== 200) throw new Error(`enrolling: HTTP ${enrolled.status} ${enrolled.text}`);
  return { cert: (JSON.parse(enrolled.text) as { data: { cert: string } }).data.cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') };
}

async function main(cleanups: (() => Promise<void> | void)[]): Promise<StormRun> {
  const loadAverage = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'edgeward-oidc-storm-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  progress('starting a three-controller cluster');
  const cluster = await EdgewardCluster.start(join(root, 'cluster'), (stop) => cleanups.push(stop), progress);
  const leader = await cluster.leader(60_000);
  const target = await cluster.loadTarget(leader);
  const managementApi = target.url.replace(/\/identities$/, '');
  const origin = new URL(target.url).origin;
  const session = target.headers['zt-session']!;
  const probe = new ProbeClient(cluster.caPem);
  cleanups.push(() => probe.close());
  const identity = await enrolledIdentity(probe, managementApi, `${origin}/edge/client/v1`, session, root);
  const client = new MtlsClient(cluster.caPem, identity.cert, identity.key);
  cleanups.push(() => client.close());
  // Every controller's signing key is published and one login of each kind works before anything is timed.
  await legacyLogin(client, origin);
  await oidcLogin(client, origin);
  const stormRounds: StormRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    const first: LoginKind = round % 2 === 1 ? 'legacy' : 'oidc';
    const order: LoginKind[] = first === 'legacy' ? ['legacy', 'oidc'] : ['oidc', 'legacy'];
    const measured: Partial<Record<LoginKind, StormMeasurement>> = {};
    for (const kind of order) measured[kind] = await measure(kind, client, probe, origin, target.url, session, round, cluster.pids()[leader]);
    stormRounds.push({ round, first, legacy: measured.legacy!, oidc: measured.oidc! });
  }
  await cluster.stop();
  return {
    date: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', node: process.version, os: `${type()} ${release()}`, loadAverage },
    concurrency,
    writeRate,
    loginController: cluster.memberNames[leader]!,
    rounds: stormRounds,
  };
}

const { cleanups, runCleanups, abort, markFinishing } = benchLifecycle(budgetMs, progress);

try {
  const run = await main(cleanups);
  markFinishing();
  await runCleanups();
  writeFileSync(resultsFile, renderStormSection(readPreviousResults(resultsFile), run, notes));
  process.stdout.write(`${stormSummary(run)}\n\nWritten to ${resultsFile} (oidc-login-storm section)\n`);
  process.exit(0);
} catch (error) {
  await abort(`failed: ${(error as Error).stack ?? String(error)}`, 1);
}
