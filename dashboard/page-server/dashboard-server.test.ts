// The gatherer and the page's server against stand-in controllers and a stand-in alerts daemon over real HTTP (the
// Next app replaced by a stub): what /api/state and /api/stream say, a controller that stops answering, the member
// list from the leader, and the login: wrong password, non-administrator, MFA, administrator, cookie, logout, expiry.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { alertCatalogue } from '../../alerts/catalogue/alert-catalogue.ts';
import { rulesFileText } from '../../alerts/rules/rules-files.ts';
import { createMemoryLogger } from '../../common/log/logger.ts';
import { ManualClock, systemClock } from '../../common/time/clock.ts';
import type { Clock } from '../../common/time/clock.ts';
import { parseDashboardConfig } from '../config/dashboard-config.ts';
import type { DashboardConfig } from '../config/dashboard-config.ts';
import type { StateBody, StreamMessage } from '../state/snapshot.ts';
import { FakeController, metricsText } from '../testing/fake-controller.ts';
import { AdminAccess } from './admin-access.ts';
import { ClusterGatherer } from './cluster-gatherer.ts';
import { startDashboardServer } from './dashboard-server.ts';
import type { DashboardServer } from './dashboard-server.ts';
import { HttpClient } from './http-client.ts';
import { PageSessions } from './page-sessions.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-dashboard-server-'));
const cleanups: (() => Promise<void> | void)[] = [() => rmSync(root, { recursive: true, force: true })];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const controllers = [new FakeController('ctrl1'), new FakeController('ctrl2'), new FakeController('ctrl3')];
const members = controllers.map((controller, index) => ({ id: controller.id, address: `tls:127.0.0.1:${6262 + index}`, voter: true, leader: index === 0, version: 'v0.1.0', connected: true, readOnly: false }));
let daemon: Server;
let daemonBody: unknown = { cluster: 'c', generatedAt: '', alerts: [], commitLag: [], controllers: [] };

before(async () => {
  for (const [index, controller] of controllers.entries()) {
    controller.raftStatus = index === 0 ? 200 : 429;
    controller.metricsText = metricsText({ isLeader: index === 0, leader: 'ctrl1', applied: 40 - index });
    controller.members = members;
    controller.users = { admin: { password: 'admin-pw', isAdmin: true }, user: { password: 'user-pw', isAdmin: false }, mfa: { password: 'mfa-pw', isAdmin: true, mfaCode: '123456' } };
    await controller.start();
    cleanups.push(() => controller.stop());
  }
  daemon = createServer((req, res) => {
    if (req.url === '/api/v1/status') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(daemonBody));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => daemon.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => daemon.close(() => resolve())));
});

interface Page {
  readonly url: string;
  readonly gatherer: ClusterGatherer;
  readonly server: DashboardServer;
  readonly sessions: PageSessions;
  readonly logger: ReturnType<typeof createMemoryLogger>;
}

/** The real runbooks, as an installed page reads them. */
const runbooks = readFileSync(new URL('../../docs/runbooks.md', import.meta.url), 'utf8');

async function startPage(extra: string[], options: { clock?: Clock; passwordFile?: string } = {}): Promise<Page> {
  const events = join(root, `events-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(events, '');
  const text = [
    'listen: 127.0.0.1:0',
    'controllers:',
    ...controllers.flatMap((controller, index) => [`  - id: ${controller.id}`, `    url: ${controller.url}`, ...(index === 0 ? [`    eventsFile: ${events}`] : [])]),
    `alertsDaemon: {url: "http://127.0.0.1:${(daemon.address() as AddressInfo).port}"}`,
    'pollInterval: 200ms',
    'timeouts: {request: 300ms, login: 2s}',
    ...extra,
  ].join('\n');
  const { config, problems } = parseDashboardConfig(text, { file: join(root, 'dashboard.yml'), env: {} });
  assert.deepEqual(problems, []);
  const clock = options.clock ?? systemClock;
  const logger = createMemoryLogger();
  const http = new HttpClient(undefined);
  const sessions = new PageSessions({ ttlMs: config!.session.ttl, idleTimeoutMs: config!.session.idleTimeout, maxSessions: config!.session.maxSessions, now: () => clock.now(), randomBytes: (size) => randomBytes(size) });
  const credentials = options.passwordFile ? { credentials: { username: 'admin', password: 'admin-pw' } } : {};
  const admin = new AdminAccess(http, { ...credentials, sessions, loginTimeoutMs: 2000, now: () => clock.now(), logger });
  const gatherer = new ClusterGatherer(config as DashboardConfig, { clock, logger, http, admin });
  await gatherer.start();
  const next = { handle: async (_req: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>the page</html>'), close: async () => undefined };
  const server = await startDashboardServer({ config: config!, gatherer, sessions, http, next, clock, logger, runbooks });
  cleanups.push(async () => {
    await server.close();
    await gatherer.stop();
    http.close();
  });
  appendFileSync(events, `${JSON.stringify({ namespace: 'cluster', event_src_id: 'ctrl1', timestamp: new Date().toISOString(), eventType: 'leadership.gained' })}\nnot json\n`);
  appendFileSync(events, `${JSON.stringify({ namespace: 'entityChange', timestamp: new Date().toISOString(), raftIndex: 40 })}\n`);
  return { url: server.url, gatherer, server, sessions, logger };
}

async function state(page: Page, cookie?: string): Promise<{ status: number; body: StateBody }> {
  const response = await fetch(`${page.url}/api/state`, { headers: cookie ? { cookie } : {} });
  return { status: response.status, body: (await response.json()) as StateBody };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('gathering and serving the state', () => {
  let page: Page;
  before(async () => {
    const passwordFile = join(root, 'pw');
    writeFileSync(passwordFile, 'admin-pw\n');
    page = await startPage([], { passwordFile });
  });

  test('/api/state: every controller with its role, the leader\'s member list, events and lag, the daemon\'s alerts', async () => {
    const { status, body } = await until('the member list and the event', async () => {
      const answer = await state(page);
      return answer.body.snapshot.members.rows.length === 3 && answer.body.snapshot.events.length === 1 ? answer : undefined;
    });
    assert.equal(status, 200);
    const snapshot = body.snapshot;
    assert.equal(snapshot.cluster.headline, 'ctrl1 leads · 3 of 3 controllers reachable');
    assert.deepEqual(snapshot.controllers.map((controller) => [controller.id, controller.role, controller.version, controller.appliedIndex]), [
      ['ctrl1', 'leader', 'v0.1.0', 40],
      ['ctrl2', 'follower', 'v0.1.0', 39],
      ['ctrl3', 'follower', 'v0.1.0', 38],
    ]);
    assert.ok(snapshot.controllers[0]!.uptimeSeconds! >= 119);
    assert.deepEqual(snapshot.members.from, 'ctrl1');
    assert.equal(snapshot.members.fromLeader, true);
    assert.deepEqual(snapshot.events.map((event) => [event.controller, event.eventType]), [['ctrl1', 'leadership.gained']]);
    assert.equal(page.gatherer.malformedEventLines, 1, 'the line that is not JSON is skipped');
    assert.deepEqual(snapshot.controllers.map((controller) => controller.lag?.source), ['event files', 'applied index', 'applied index']);
    assert.deepEqual(snapshot.controllers.map((controller) => controller.lag?.entries), [0, 1, 2]);
    assert.equal(snapshot.alerts.status, 'ok');
    assert.ok(body.history.length >= 1);
    assert.equal(snapshot.charts.length, 7);
    assert.ok(controllers[0]!.requests.includes('GET /fabric/v1/cluster/list-members'), 'the list comes from the leader');
    assert.ok(!controllers[1]!.requests.includes('GET /fabric/v1/cluster/list-members'));
  });

  test('/api/state does no I/O per request: it serves the latest gather', async () => {
    const before = controllers[0]!.requests.length;
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${page.url}/api/state`).then((response) => response.text())));
    const elapsed = performance.now() - started;
    // At most the gathers that the 200 ms poll made while the requests ran (a loaded machine stretches them), never
    // one per request.
    const gathers = new Set(answers.map((text) => (JSON.parse(text) as StateBody).snapshot.generatedAt)).size;
    assert.ok(gathers <= 2 + Math.floor(elapsed / 200) && gathers < 10, `${gathers} gathers served 50 requests in ${Math.round(elapsed)} ms`);
    // One gather asks each of its paths once; the polls that ran meanwhile may ask them again, a request never does.
    const pathsPerGather = new Set(controllers[0]!.requests).size;
    const asked = controllers[0]!.requests.length - before;
    assert.ok(asked <= pathsPerGather * (2 + Math.floor(elapsed / 200)) && asked < 50, `the controllers were asked ${asked} times for 50 requests in ${Math.round(elapsed)} ms`);
    assert.ok(elapsed < 2000, `${elapsed} ms`);
  });

  test('/api/stream: the snapshot with the history first, then one point per gather', async () => {
    const controller = new AbortController();
    const response = await fetch(`${page.url}/api/stream`, { signal: controller.signal });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = response.body!.getReader();
    const messages: StreamMessage[] = [];
    let buffered = '';
    while (messages.length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += Buffer.from(value).toString();
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data && block.includes('event: snapshot')) messages.push(JSON.parse(data.slice(6)) as StreamMessage);
      }
    }
    controller.abort();
    assert.equal(messages[0]!.reset, true);
    assert.ok(messages[0]!.points.length >= 1);
    assert.deepEqual(messages.slice(1).map((message) => [message.reset, message.points.length]), [[false, 1], [false, 1]]);
    assert.ok(messages[2]!.snapshot.generatedAt > messages[1]!.snapshot.generatedAt);
  });

  test('a controller that stops answering is shown unreachable within its timeout; the others go on', async () => {
    controllers[2]!.frozen = true;
    try {
      const started = Date.now();
      const snapshot = await until('ctrl3 unreachable', async () => {
        const { body } = await state(page);
        return body.snapshot.controllers[2]!.reachable ? undefined : body.snapshot;
      });
      assert.ok(Date.now() - started < 1500, `${Date.now() - started} ms`);
      assert.match(snapshot.controllers[2]!.error ?? '', /no answer within 300 ms/);
      assert.equal(snapshot.controllers[0]!.reachable, true);
      assert.equal(snapshot.cluster.headline, 'ctrl1 leads · 2 of 3 controllers reachable');
    } finally {
      controllers[2]!.frozen = false;
    }
    await until('ctrl3 back', async () => ((await state(page)).body.snapshot.controllers[2]!.reachable ? true : undefined));
  });

  test('a new leader: the member list is read from it; a daemon answering nonsense is shown as such', async () => {
    controllers[0]!.raftStatus = 429;
    controllers[1]!.raftStatus = 200;
    daemonBody = { unexpected: true };
    try {
      const snapshot = await until('ctrl2 leading and listing', async () => {
        const { body } = await state(page);
        return body.snapshot.cluster.leaderId === 'ctrl2' && body.snapshot.members.from === 'ctrl2' ? body.snapshot : undefined;
      });
      assert.equal(snapshot.alerts.status, 'unreachable');
      assert.match(snapshot.alerts.error ?? '', /no alerts, commitLag and controllers lists/);
    } finally {
      controllers[0]!.raftStatus = 200;
      controllers[1]!.raftStatus = 429;
      daemonBody = { cluster: 'c', generatedAt: '', alerts: [], commitLag: [], controllers: [] };
    }
  });

  test('every generated runbook_url, on this page\'s address, opens the runbooks page at its alert\'s section', async () => {
    const rules = parse(rulesFileText()) as { groups: { rules: { alert?: string; annotations?: Record<string, string> }[] }[] };
    const urls = rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert).map((rule) => new URL(rule.annotations!['runbook_url']!));
    assert.equal(new Set(urls.map((url) => url.pathname)).size, 1);
    assert.equal(urls[0]!.pathname, '/runbooks', 'the default base is the status page\'s runbooks page');
    const answer = await fetch(`${page.url}${urls[0]!.pathname}`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    const html = await answer.text();
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    for (const url of urls) assert.ok(ids.has(url.hash.slice(1)), `${url.href} has no section on the page`);
    for (const alert of alertCatalogue) assert.ok(ids.has(alert.name.toLowerCase()), `no section for ${alert.name}`);
    assert.equal((await fetch(`${page.url}/runbooks`, { method: 'HEAD' })).status, 200);
  });

  test('the health endpoint, the runbooks, unknown endpoints and methods', async () => {
    const health = await fetch(`${page.url}/api/health`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, 'ok');
    const text = await fetch(`${page.url}/docs/runbooks.md`);
    assert.equal(await text.text(), runbooks);
    assert.equal((await fetch(`${page.url}/api/nothing`)).status, 404);
    assert.equal((await fetch(`${page.url}/api/state`, { method: 'DELETE' })).status, 405);
    assert.equal((await fetch(`${page.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404, 'no login on a loopback-only page');
    assert.equal((await fetch(`${page.url}/login`, { redirect: 'manual' })).headers.get('location'), '/', 'no login form on a page that asks for none');
    const pageAnswer = await fetch(`${page.url}/`);
    assert.equal(await pageAnswer.text(), '<html>the page</html>');
    assert.equal(pageAnswer.headers.get('x-frame-options'), 'DENY');
  });
});

describe('the login', () => {
  let page: Page;
  const clock = new ManualClock(Date.now());
  before(async () => {
    page = await startPage(['auth: required', 'session: {ttl: 2h, idleTimeout: 10m}'], { clock });
  });

  const login = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${page.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), redirect: 'manual' });

  test('without a session: the data endpoints answer 401, the page sends the browser to /login', async () => {
    assert.equal((await fetch(`${page.url}/api/state`)).status, 401);
    assert.equal((await fetch(`${page.url}/api/stream`)).status, 401);
    const root = await fetch(`${page.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 303);
    assert.equal(root.headers.get('location'), '/login');
    assert.equal((await fetch(`${page.url}/login`, { redirect: 'manual' })).status, 200);
    assert.equal((await fetch(`${page.url}/_next/static/chunks/x.js`, { redirect: 'manual' })).status, 200, 'the page\'s static files load the login page');
    assert.equal((await fetch(`${page.url}/api/state`, { headers: { cookie: 'edgeward-status=made-up' } })).status, 401);
    assert.deepEqual(await (await fetch(`${page.url}/api/session`)).json(), { loginRequired: true, authenticated: false });
  });

  test('a wrong password and a non-administrator are refused, and neither gets a cookie', async () => {
    const wrong = await login({ username: 'admin', password: 'nope' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.match(((await wrong.json()) as { error: string }).error, /Wrong username or password/);
    const user = await login({ username: 'user', password: 'user-pw' });
    assert.equal(user.status, 403);
    assert.equal(user.headers.get('set-cookie'), null);
    assert.match(((await user.json()) as { error: string }).error, /Only administrators/);
    assert.equal(controllers.flatMap((controller) => controller.loggedOut).length >= 1, true, 'the non-administrator\'s controller session was ended');
    assert.equal((await login({ username: 'admin' })).status, 400);
    const text = await fetch(`${page.url}/api/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(text.status, 415);
    assert.equal((await login({ username: 'admin', password: 'admin-pw' }, { origin: 'https://evil.example' })).status, 403, 'a cross-site login is refused');
  });

  test('an administrator with MFA must give the code', async () => {
    const noCode = await login({ username: 'mfa', password: 'mfa-pw' });
    assert.equal(noCode.status, 401);
    assert.equal(((await noCode.json()) as { mfaRequired?: boolean }).mfaRequired, true);
    assert.equal((await login({ username: 'mfa', password: 'mfa-pw', code: '000000' })).status, 401);
    const good = await login({ username: 'mfa', password: 'mfa-pw', code: '123456' });
    assert.equal(good.status, 200);
  });

  test('an administrator gets an HttpOnly, SameSite=Strict cookie with a page session of its own; logout ends it', async () => {
    const good = await login({ username: 'admin', password: 'admin-pw' });
    assert.equal(good.status, 200);
    const setCookie = good.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^edgeward-status=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=7200; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(';')[0]!;
    const value = cookie.split('=')[1]!;
    for (const controller of controllers) for (const token of controller.tokens.keys()) assert.notEqual(token, value, 'the cookie is not a controller token');
    const { status, body } = await state(page, cookie);
    assert.equal(status, 200);
    assert.equal(body.snapshot.controllers.length, 3);
    assert.deepEqual(await (await fetch(`${page.url}/api/session`, { headers: { cookie } })).json(), { loginRequired: true, authenticated: true, username: 'admin' });
    assert.equal((await fetch(`${page.url}/login`, { headers: { cookie }, redirect: 'manual' })).status, 303, 'logged in: /login leads to the page');
    // The member list is read with the logged-in administrator's controller session.
    await until('the member list', async () => ((await state(page, cookie)).body.snapshot.members.rows.length === 3 ? true : undefined));

    const logout = await fetch(`${page.url}/api/logout`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(logout.status, 200);
    assert.match(logout.headers.get('set-cookie') ?? '', /Max-Age=0/);
    assert.equal((await state(page, cookie)).status, 401);
  });

  test('a session expires after the idle timeout', async () => {
    const good = await login({ username: 'admin', password: 'admin-pw' });
    const cookie = (good.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.equal((await state(page, cookie)).status, 200);
    clock.advance(9 * 60_000);
    assert.equal((await state(page, cookie)).status, 200, 'each request counts as activity');
    clock.advance(10 * 60_000 + 1);
    assert.equal((await state(page, cookie)).status, 401);
  });

  test('repeated failures from one address are throttled', async () => {
    let last = 0;
    for (let i = 0; i < 12; i++) last = (await login({ username: 'admin', password: `wrong-${i}` })).status;
    assert.equal(last, 429);
    const throttled = await login({ username: 'admin', password: 'admin-pw' });
    assert.equal(throttled.status, 429);
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);
  });
});

/** An HTTP request from a chosen local address and with a chosen Host (fetch can set neither). */
function rawRequest(url: string, options: { method?: string; localAddress?: string; host?: string; body?: unknown }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const target = new URL(url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { host: options.host ?? target.host, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) };
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: options.method ?? 'GET', headers, ...(options.localAddress ? { localAddress: options.localAddress } : {}) }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Guesses that reached a controller (other pages of this file log in with their own passwords meanwhile). */
const passwordLogins = () => new Set(controllers.flatMap((controller) => controller.passwordsTried.filter((password) => password.startsWith('guess-')))).size;

describe('the login throttle counts attempts in flight', () => {
  let page: Page;
  before(async () => {
    // Each password check takes 300 ms at the controllers, so the attempts below are all in flight together.
    for (const controller of controllers) controller.authenticateDelayMs = 300;
    page = await startPage(['auth: required', 'loginThrottle: {maxFailuresPerAddress: 10, maxFailures: 40, reservedForKnown: 8, window: 5m}']);
  });
  after(() => {
    for (const controller of controllers) controller.authenticateDelayMs = 0;
  });

  test('100 concurrent wrong logins from one address: at most 10 reach a controller, the rest get 429 at once', async () => {
    const before = passwordLogins();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => rawRequest(`${page.url}/api/login`, { method: 'POST', localAddress: '127.0.0.11', body: { username: 'admin', password: `guess-${i}` } })));
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 401).length, 10, JSON.stringify(statuses));
    assert.equal(statuses.filter((status) => status === 429).length, 90);
    assert.equal(passwordLogins() - before, 10, 'only the reserved attempts asked a controller');
    const throttled = answers.find((answer) => answer.status === 429)!;
    assert.ok(Number(throttled.headers['retry-after']) >= 1);
    assert.match(throttled.text, /from this address/);
  });

  test('guesses from many addresses stop below the controllers\' per-address budget (50), and an operator who logged in before still gets in', async () => {
    // An operator logs in (and out) from 127.0.0.20: that address is known to the page for the session ttl.
    const operator = await rawRequest(`${page.url}/api/login`, { method: 'POST', localAddress: '127.0.0.20', body: { username: 'admin', password: 'admin-pw' } });
    assert.equal(operator.status, 200, operator.text);
    const before = passwordLogins();
    // Five more addresses, ten guesses each, all at once: with the 10 from the test before, the page's budget is 40.
    const guesses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => rawRequest(`${page.url}/api/login`, { method: 'POST', localAddress: `127.0.0.${12 + (i % 5)}`, body: { username: 'admin', password: `guess-many-${i}` } })),
    );
    const statuses = guesses.map((answer) => answer.status);
    assert.equal(passwordLogins() - before, 30, `the page's 40 attempts in its window, 10 of them used before: ${JSON.stringify(statuses)}`);
    assert.equal(statuses.filter((status) => status === 401).length, 30);
    assert.ok(guesses.filter((answer) => answer.status === 429).every((answer) => /this (address|page)/.test(answer.text)));
    // A stranger now waits: the controllers have seen 40 refusals from the page's address, fewer than their 50.
    const stranger = await rawRequest(`${page.url}/api/login`, { method: 'POST', localAddress: '127.0.0.30', body: { username: 'admin', password: 'admin-pw' } });
    assert.equal(stranger.status, 429);
    assert.match(stranger.text, /to this page/);
    // The operator's address has slots kept for it, and the controllers never locked the page's address out.
    const again = await rawRequest(`${page.url}/api/login`, { method: 'POST', localAddress: '127.0.0.20', body: { username: 'admin', password: 'admin-pw' } });
    assert.equal(again.status, 200, again.text);
  });
});

describe('DNS rebinding: the page on loopback answers only for its own names', () => {
  let page: Page;
  before(async () => {
    page = await startPage([]);
  });

  test('a Host that is not the page\'s own gets 421 on every path; its own names are served', async () => {
    const port = new URL(page.url).port;
    for (const path of ['/api/state', '/api/health', '/', '/api/session', '/docs/runbooks.md', '/runbooks']) {
      for (const host of ['rebound.attacker.example', `rebound.attacker.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
        const answer = await rawRequest(`${page.url}${path}`, { host });
        assert.equal(answer.status, 421, `${path} with Host ${host}`);
        assert.doesNotMatch(answer.text, /snapshot/);
      }
    }
    await until('the first gather', async () => ((await state(page)).status === 200 ? true : undefined));
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) assert.equal((await rawRequest(`${page.url}/api/state`, { host })).status, 200, host);
  });
});
