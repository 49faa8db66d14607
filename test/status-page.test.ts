// The status page end to end in a real browser: a real three-controller cluster (every controller writing its entity
// changes, for commit lag), the real alerts daemon process (short windows), the real `./edgeward dashboard run`
// process, and Debian's Chromium driven by playwright-core. It sees three controllers, one leader, lag figures,
// events and charts; freezes the leader (SIGSTOP) and sees the new leader and the lost controller within 5 s; freezes
// a second controller and sees the page alert with its runbook link. Screenshots (desktop and phone) are saved under
// test-artifacts/status-page/.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dashboardConfigExample } from '../dashboard/config/dashboard-config-example.ts';
import { pkiPaths } from '../common/pki/pki-directory.ts';
import { threeControllerCluster } from './support/cluster-helpers.ts';
import { adminCredentials, type ControllerFixture } from './support/controller-fixture.ts';
import { FakeAlertmanager } from './support/fake-alertmanager.ts';
import { freePort } from './support/free-port.ts';
import { EdgewardProcess, artifactDir, launchChromium, screenshotPath } from './support/status-page-process.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-status-page-'));
const pkiDir = join(root, 'pki');
const shots = artifactDir('status-page');
const pages = ['EdgewardClusterLeaderless', 'EdgewardQuorumLost', 'EdgewardNoControllerHealthy'];

let nodes: ControllerFixture[] = [];
const alertmanager = new FakeAlertmanager();
let daemon: EdgewardProcess | undefined;
let dashboard: EdgewardProcess | undefined;
let browser: Browser | undefined;
let desktop: BrowserContext;
let page: Page;
let url = '';
const pageErrors: string[] = [];
/** SIGSTOPped controllers: continued before anything else is done with them. */
const frozen = new Set<number>();

function thaw(): void {
  for (const pid of frozen) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
  frozen.clear();
}

function freeze(node: ControllerFixture): number {
  const pid = node.child!.pid!;
  frozen.add(pid);
  process.kill(pid, 'SIGSTOP');
  return Date.now();
}

async function shoot(name: string, target: Page = page): Promise<void> {
  const path = screenshotPath(shots, name);
  await target.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

/** A phone's view of the page (a 390 x 844 touch screen), saved. */
async function phoneShot(name: string): Promise<void> {
  const phone = await browser!.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  try {
    const tab = await phone.newPage();
    await tab.goto(url);
    await tab.waitForSelector('[data-testid="controller-card"]');
    await tab.waitForSelector('[data-testid="connection"]:has-text("live")', { timeout: 10_000 });
    const layout = await tab.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      cardsLeft: [...document.querySelectorAll('[data-testid="controller-card"]')].map((card) => Math.round(card.getBoundingClientRect().left)),
    }));
    assert.ok(layout.scrollWidth <= 390, `the page fits the phone's width (${layout.scrollWidth} px)`);
    assert.equal(new Set(layout.cardsLeft).size, 1, 'one column of controller cards');
    await shoot(name, tab);
  } finally {
    await phone.close();
  }
}

const leaderOnPage = () => page.getAttribute('[data-testid="cluster-headline"]', 'data-leader');

before(
  async () => {
    nodes = await threeControllerCluster(pkiDir, {
      editConfig: (yaml) => {
        const edited = yaml.replace('propagateAlways: false', 'propagateAlways: true');
        assert.notEqual(edited, yaml, 'the controller config has propagateAlways');
        return edited;
      },
    });
    await alertmanager.start();
    const ca = pkiPaths(pkiDir).bundle;
    const alertsPort = await freePort();
    const alertsFile = join(root, 'alerts.yml');
    writeFileSync(
      alertsFile,
      [
        'cluster: browser',
        'controllers:',
        ...nodes.flatMap((node) => [
          `  - id: ${node.id}`,
          `    logFile: ${node.logFile}`,
          `    eventsFile: ${node.eventsFile}`,
          `    healthUrl: ${node.origin}/health-checks/controller/raft`,
          `    metricsUrl: ${node.origin}/metrics`,
        ]),
        `caBundle: ${ca}`,
        'alertmanager:',
        `  urls: [${alertmanager.url}]`,
        `stateDir: ${join(root, 'alerts-state')}`,
        `listen: 127.0.0.1:${alertsPort}`,
        'runbookBaseUrl: https://runbooks.example/edgeward/runbooks.md',
        'files:',
        '  initialPosition: start',
        'rules:',
        '  leaderlessTolerance: 2s',
        '  noHealthyFor: 2s',
        '  quorumLostFor: 2s',
        '  healthPollInterval: 500ms',
        '  healthPollTimeout: 400ms',
        '  metricsPollInterval: 1s',
        '  metricsPollTimeout: 800ms',
      ].join('\n'),
    );
    daemon = new EdgewardProcess(['alerts', 'run', alertsFile]);
    await daemon.ready(`http://127.0.0.1:${alertsPort}/health`, 60_000);

    const passwordFile = join(root, 'admin-password');
    writeFileSync(passwordFile, `${adminCredentials.password}\n`, { mode: 0o600 });
    const port = await freePort();
    const dashboardFile = join(root, 'dashboard.yml');
    writeFileSync(
      dashboardFile,
      dashboardConfigExample({
        listen: `127.0.0.1:${port}`,
        controllers: nodes.map((node) => ({ id: node.id, url: node.origin, eventsFile: node.eventsFile })),
        caBundle: ca,
        alertsDaemonUrl: `http://127.0.0.1:${alertsPort}`,
        credentials: { username: adminCredentials.username, passwordFile },
        pollInterval: '500ms',
        requestTimeout: '1s',
      }),
    );
    url = `http://127.0.0.1:${port}/`;
    dashboard = new EdgewardProcess(['dashboard', 'run', dashboardFile]);
    // The first run may build the page (next build) before it listens.
    await dashboard.ready(`${url}api/health`, 600_000);

    browser = await launchChromium();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await desktop.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // React reports a first render that does not match the server's HTML on the console.
    page.on('console', (message) => {
      if (message.type() === 'error' && /hydrat/i.test(message.text())) pageErrors.push(message.text());
    });
  },
  { timeout: 900_000 },
);

after(async () => {
  thaw();
  await browser?.close();
  await dashboard?.stop();
  await daemon?.stop();
  await Promise.all(nodes.map((node) => node.dispose()));
  await alertmanager.stop();
  rmSync(root, { recursive: true, force: true });
});

test('the page shows three controllers, exactly one leader, lag figures, events, the members and charts with data', { timeout: 120_000 }, async () => {
  await page.goto(url);
  await page.waitForSelector('[data-testid="connection"]:has-text("live")', { timeout: 20_000 });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="member-row"]').length === 3, undefined, { timeout: 20_000 });

  const cards = await page.$$eval('[data-testid="controller-card"]', (elements) => elements.map((element) => [element.getAttribute('data-controller-id'), element.getAttribute('data-role')]));
  assert.deepEqual(cards.map(([id]) => id), ['ctrl1', 'ctrl2', 'ctrl3']);
  assert.equal(cards.filter(([, role]) => role === 'leader').length, 1, JSON.stringify(cards));
  assert.equal(cards.filter(([, role]) => role === 'follower').length, 2);
  const leader = await leaderOnPage();
  assert.equal(leader, cards.find(([, role]) => role === 'leader')![0]);
  assert.match((await page.textContent('[data-testid="cluster-headline"]')) ?? '', new RegExp(`${leader} leads · 3 of 3 controllers reachable`));

  // Commit lag in raft entries and seconds, from the alerts daemon, for every controller.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="lag-entries"]')].every((cell) => /^\d[\d,]*$/.test(cell.textContent ?? '')), undefined, { timeout: 20_000 });
  const lag = await page.$$eval('[data-testid="lag-row"]', (rows) => rows.map((row) => [row.querySelector('[data-testid="lag-entries"]')!.textContent, row.querySelector('[data-testid="lag-seconds"]')!.textContent, row.lastElementChild!.textContent]));
  assert.equal(lag.length, 3);
  for (const [entries, seconds, source] of lag) {
    assert.match(entries ?? '', /^\d[\d,]*$/);
    assert.match(seconds ?? '', /\d/);
    assert.equal(source, 'alerts daemon');
  }

  // The leader's member table, as `cluster list` shows it.
  const members = await page.$$eval('[data-testid="member-row"]', (rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
  assert.deepEqual(members.map((row) => [row[0], row[2], row[3], row[5], row[6]]), nodes.map((node) => [node.id, 'true', String(node.id === leader), 'true', 'false']));

  const events = await page.$$eval('[data-testid="event-row"]', (rows) => rows.map((row) => row.getAttribute('data-event-type')));
  assert.ok(events.length >= 3, `events: ${events.join(', ')}`);
  assert.ok(events.includes('members.changed'), events.join(', '));

  // Charts: recharts' SVG with lines drawn through several points. Heartbeats come every 10 s, so the peer latency
  // line starts once one has come within its one-minute window after the page's second reading.
  for (const chart of ['rate-limiter-window', 'rate-limiter-queue', 'commit-lag-entries', 'peer-latency']) {
    await page
      .waitForFunction(
        (id) => [...document.querySelectorAll(`[data-testid="chart-${id}"] svg.recharts-surface path.recharts-line-curve`)].some((path) => ((path.getAttribute('d') ?? '').match(/L/g) ?? []).length >= 2),
        chart,
        { timeout: 30_000 },
      )
      .catch((error: Error) => assert.fail(`${chart}: no line through several points: ${error.message}`));
  }
  assert.equal(await page.getAttribute('[data-testid="chart-rate-limiter-window"]', 'data-series'), '3');
  assert.ok(await page.$('[data-testid="alerts-quiet"]'), 'nothing firing yet');
  await shoot('desktop-healthy');
  await phoneShot('phone-healthy');
  assert.deepEqual(pageErrors, []);
});

test('a frozen leader: within 5 s the page shows the new leader and the lost controller as unreachable', { timeout: 60_000 }, async () => {
  const leaderId = await leaderOnPage();
  const leader = nodes.find((node) => node.id === leaderId);
  assert.ok(leader, `the page names a leader (${leaderId})`);
  const frozenAt = freeze(leader);
  // When each half was first seen, for the log.
  const seen: Record<string, number> = {};
  const watch = setInterval(() => {
    void page
      .evaluate((old) => ({
        leader: document.querySelector('[data-testid="cluster-headline"]')?.getAttribute('data-leader') ?? '',
        lost: document.querySelector(`[data-testid="controller-card"][data-controller-id="${old}"]`)?.getAttribute('data-reachable') === 'false',
      }), leaderId)
      .then((now) => {
        if (now.leader !== '' && now.leader !== leaderId) seen.newLeader ??= Date.now() - frozenAt;
        if (now.lost) seen.lost ??= Date.now() - frozenAt;
      }, () => undefined);
  }, 100);
  after(() => clearInterval(watch));
  await page.waitForFunction(
    (old) => {
      const headline = document.querySelector('[data-testid="cluster-headline"]');
      const lost = document.querySelector(`[data-testid="controller-card"][data-controller-id="${old}"]`);
      const newLeader = headline?.getAttribute('data-leader');
      return newLeader !== undefined && newLeader !== '' && newLeader !== old && lost?.getAttribute('data-reachable') === 'false';
    },
    leaderId,
    { timeout: 5_000, polling: 100 },
  );
  const seenAfter = Date.now() - frozenAt;
  clearInterval(watch);
  console.log(`new leader and lost controller seen ${seenAfter} ms after the freeze (new leader first seen at ${seen.newLeader ?? '?'} ms, the lost controller at ${seen.lost ?? '?'} ms)`);
  assert.ok(seenAfter <= 5_000, `${seenAfter} ms`);
  const newLeader = await leaderOnPage();
  assert.notEqual(newLeader, leaderId);
  assert.match((await page.textContent(`[data-testid="controller-card"][data-controller-id="${leaderId}"]`)) ?? '', /unreachable/);
  assert.match((await page.textContent('[data-testid="cluster-headline"]')) ?? '', /2 of 3 controllers reachable/);
  await shoot('desktop-leader-frozen');
});

test('a second frozen controller: the page shows the page alert the daemon fires, with its runbook link', { timeout: 90_000 }, async () => {
  // The election after the first freeze may have paged for a moment (no controller answered 200 for 2 s): wait until
  // nothing pages, so that the page seen below is the second freeze's.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="alert"][data-severity="critical"]').length === 0, undefined, { timeout: 30_000, polling: 250 });
  const leaderId = await leaderOnPage();
  const second = nodes.find((node) => node.id === leaderId);
  assert.ok(second, 'a new leader to freeze');
  freeze(second);
  await page.waitForFunction(
    (names) =>
      document.querySelectorAll('[data-testid="controller-card"][data-reachable="false"]').length === 2 &&
      [...document.querySelectorAll('[data-testid="alert"][data-severity="critical"]')].some((alert) => names.includes(alert.getAttribute('data-alertname') ?? '')),
    pages,
    { timeout: 60_000, polling: 250 },
  );
  const alerts = await page.$$eval('[data-testid="alert"][data-severity="critical"]', (items) =>
    items.map((item) => ({ name: item.getAttribute('data-alertname'), runbook: item.querySelector('[data-testid="runbook-link"]')?.getAttribute('href') })),
  );
  const firing = alerts.find((alert) => pages.includes(alert.name ?? ''))!;
  assert.equal(firing.runbook, `https://runbooks.example/edgeward/runbooks.md#${firing.name!.toLowerCase()}`);
  assert.equal(await page.getAttribute('[data-testid="cluster-headline"]', 'data-level'), 'critical');
  assert.match((await page.textContent('[data-testid="cluster-headline"]')) ?? '', /page/);
  assert.equal(await page.$$eval('[data-testid="controller-card"][data-reachable="false"]', (cards) => cards.length), 2);
  await shoot('desktop-page-firing');
  await phoneShot('phone-page-firing');
  thaw();
  // Continued, the cluster elects a leader again and the page follows.
  await page.waitForFunction(() => (document.querySelector('[data-testid="cluster-headline"]')?.textContent ?? '').includes('3 of 3 controllers reachable'), undefined, { timeout: 30_000 });
  assert.deepEqual(pageErrors, []);
});
