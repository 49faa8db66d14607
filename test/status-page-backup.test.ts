// The status page shows each controller's last backup, in a real browser, read from real controllers' /metrics (a
// two-controller cluster): one with the default schedule (every 6 h) and no backup yet, then a backup taken over the
// API (its age and size), and one whose schedule is off. A screenshot is saved under test-artifacts/status-page-backup/.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { dashboardConfigExample } from '../dashboard/config/dashboard-config-example.ts';
import { initPki, pkiPaths } from '../common/pki/pki-directory.ts';
import { agent, memberList, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { EdgewardProcess, artifactDir, launchChromium, screenshotPath } from './support/status-page-process.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-status-backup-'));
const shots = artifactDir('status-page-backup');
let scheduled: ControllerFixture | undefined;
let unscheduled: ControllerFixture | undefined;
let dashboard: EdgewardProcess | undefined;
let browser: Browser | undefined;
let page: Page;

const backupCell = (id: string) => `[data-testid="controller-card"][data-controller-id="${id}"] [data-testid="controller-backup"]`;

before(
  async () => {
    const pkiDir = join(root, 'pki');
    await initPki(pkiDir, { trustDomain: 'edgeward.test' });
    scheduled = await ControllerFixture.create({ pkiDir, id: 'ctrl1' });
    unscheduled = await ControllerFixture.create({
      pkiDir,
      id: 'ctrl2',
      initAdmin: false,
      editConfig: (yaml) => {
        const edited = yaml.replace(/\n {4}interval: 6h[^\n]*\n/, '\n    interval: 0s\n');
        assert.notEqual(edited, yaml, 'the controller config has cluster.backup.interval');
        return edited;
      },
    });
    await agent(scheduled, 'cluster.add', { address: unscheduled.ctrlAddress, voter: true });
    await until('ctrl2 a connected member', async () => (await memberList(unscheduled!)).filter((member) => member.connected).length === 2, 30_000);
    const port = await freePort();
    const file = join(root, 'dashboard.yml');
    writeFileSync(
      file,
      dashboardConfigExample({
        listen: `127.0.0.1:${port}`,
        controllers: [scheduled, unscheduled].map((node) => ({ id: node.id, url: node.origin })),
        caBundle: pkiPaths(pkiDir).bundle,
        pollInterval: '500ms',
      }),
    );
    dashboard = new EdgewardProcess(['dashboard', 'run', file]);
    // The first run may build the page (next build) before it listens.
    await dashboard.ready(`http://127.0.0.1:${port}/api/health`, 600_000);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('[data-testid="connection"]:has-text("live")', { timeout: 20_000 });
  },
  { timeout: 900_000 },
);

after(async () => {
  await browser?.close();
  await dashboard?.stop();
  await scheduled?.dispose();
  await unscheduled?.dispose();
  rmSync(root, { recursive: true, force: true });
});

test('a controller card says "no backup yet" with its schedule, or "schedule off"', { timeout: 60_000 }, async () => {
  await page.waitForSelector(`${backupCell('ctrl1')} [data-backup-state="none"]`, { timeout: 20_000 });
  assert.equal(await page.textContent(backupCell('ctrl1')), 'no backup yet (every 6 h 0 m)');
  await page.waitForSelector(`${backupCell('ctrl2')} [data-backup-state="off"]`, { timeout: 20_000 });
  assert.equal(await page.textContent(backupCell('ctrl2')), 'schedule off');
});

test('after a backup is taken, its card shows the backup\'s age and size', { timeout: 60_000 }, async () => {
  for (const node of [scheduled!, unscheduled!]) {
    const answer = await node.http.post(`${node.managementApi}/database/snapshot`, { headers: { 'zt-session': await node.adminToken() }, body: {} });
    assert.equal(answer.status, 200, answer.text);
  }
  await page.waitForSelector(`${backupCell('ctrl1')} [data-backup-state="written"]`, { timeout: 20_000 });
  assert.match((await page.textContent(backupCell('ctrl1'))) ?? '', /^\d+ s ago · \d+(\.\d+)? (B|KiB|MiB)$/);
  await page.waitForSelector(`${backupCell('ctrl2')} [data-backup-state="written"]`, { timeout: 20_000 });
  assert.match((await page.textContent(backupCell('ctrl2'))) ?? '', /^\d+ s ago · \d+(\.\d+)? (B|KiB|MiB) \(schedule off\)$/, 'taken by hand, no schedule');
  const path = screenshotPath(shots, 'last-backup');
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
});
