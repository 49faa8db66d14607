// The status page's login in a real browser, against a real controller: a page that requires a login
// (`auth: required`, here on 127.0.0.1, as it would be on any address other machines reach) sends the browser to the
// login form; a wrong password and an identity that is not an administrator are refused; an administrator gets in
// with an HttpOnly, SameSite=Strict cookie of the page's own; the data endpoints answer 401 without it; logout ends it.
// Guesses from many addresses never get the page's own address locked out at the controller.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { dashboardConfigExample } from '../dashboard/config/dashboard-config-example.ts';
import { ControllerFixture, adminCredentials } from './support/controller-fixture.ts';
import { freePort } from './support/free-port.ts';
import { EdgewardProcess, artifactDir, launchChromium, screenshotPath } from './support/status-page-process.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-status-login-'));
const shots = artifactDir('status-page-login');
let controller: ControllerFixture | undefined;
let dashboard: EdgewardProcess | undefined;
let browser: Browser | undefined;
let url = '';

before(
  async () => {
    controller = await ControllerFixture.create({ id: 'ctrl1' });
    const admin = { 'zt-session': await controller.adminToken() };
    const user = await controller.http.post(`${controller.managementApi}/identities`, { headers: admin, body: { name: 'operator', type: 'User', isAdmin: false } });
    assert.equal(user.status, 201, user.text);
    const authenticator = await controller.http.post(`${controller.managementApi}/authenticators`, { headers: admin, body: { method: 'updb', identityId: user.json.data.id, username: 'operator', password: 'operator-password' } });
    assert.equal(authenticator.status, 201, authenticator.text);

    const caFile = join(root, 'ca.pem');
    writeFileSync(caFile, controller.caPem);
    const port = await freePort();
    const file = join(root, 'dashboard.yml');
    writeFileSync(file, dashboardConfigExample({ listen: `127.0.0.1:${port}`, auth: 'required', controllers: [{ id: controller.id, url: controller.origin }], caBundle: caFile, pollInterval: '500ms' }));
    url = `http://127.0.0.1:${port}`;
    dashboard = new EdgewardProcess(['dashboard', 'run', file]);
    await dashboard.ready(`${url}/api/health`, 600_000);
    browser = await launchChromium();
  },
  { timeout: 900_000 },
);

after(async () => {
  await browser?.close();
  await dashboard?.stop();
  await controller?.dispose();
  rmSync(root, { recursive: true, force: true });
});

async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('button[type="submit"]');
}

test('without a cookie the data endpoints answer 401 and the page sends the browser to the login form', async () => {
  assert.equal((await fetch(`${url}/api/state`)).status, 401);
  assert.equal((await fetch(`${url}/api/stream`)).status, 401);
  assert.deepEqual(await (await fetch(`${url}/api/session`)).json(), { loginRequired: true, authenticated: false });
  const page = await browser!.newPage();
  await page.goto(`${url}/`);
  assert.equal(new URL(page.url()).pathname, '/login');
  assert.ok(await page.isVisible('form.login'));
  assert.equal(await page.textContent('label[for="username"]'), 'Username');
  await page.screenshot({ path: screenshotPath(shots, 'login-form') });
  console.log(`screenshot: ${screenshotPath(shots, 'login-form')}`);
  await page.close();
});

test('a wrong password and an identity that is not an administrator are refused; an administrator gets in, and logs out', { timeout: 120_000 }, async () => {
  const context = await browser!.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/login`);

  await logIn(page, adminCredentials.username, 'not-the-password');
  await page.waitForSelector('[data-testid="login-error"]');
  assert.match((await page.textContent('[data-testid="login-error"]')) ?? '', /Wrong username or password/);
  assert.deepEqual(await context.cookies(), []);

  await logIn(page, 'operator', 'operator-password');
  await page.waitForFunction(() => /Only administrators/.test(document.querySelector('[data-testid="login-error"]')?.textContent ?? ''));
  assert.deepEqual(await context.cookies(), []);
  await page.screenshot({ path: screenshotPath(shots, 'login-refused') });
  console.log(`screenshot: ${screenshotPath(shots, 'login-refused')}`);

  await logIn(page, adminCredentials.username, adminCredentials.password);
  await page.waitForURL(`${url}/`);
  await page.waitForSelector('[data-testid="controller-card"][data-controller-id="ctrl1"][data-role="leader"]');
  await page.waitForSelector('[data-testid="connection"]:has-text("live")', { timeout: 10_000 });
  const cookies = await context.cookies();
  assert.equal(cookies.length, 1);
  const cookie = cookies[0]!;
  assert.equal(cookie.name, 'edgeward-status');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/, '256 random bits, not the controller\'s token');
  assert.equal(await page.evaluate(() => document.cookie), '', 'the page\'s scripts cannot read it');
  await page.screenshot({ path: screenshotPath(shots, 'logged-in'), fullPage: true });
  console.log(`screenshot: ${screenshotPath(shots, 'logged-in')}`);

  const withCookie = await fetch(`${url}/api/state`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
  assert.equal(withCookie.status, 200);
  assert.equal(((await withCookie.json()) as { snapshot: { controllers: unknown[] } }).snapshot.controllers.length, 1);
  assert.equal((await fetch(`${url}/api/state`)).status, 401, 'still 401 without it');

  await page.click('button:has-text("Log out")');
  await page.waitForURL(`${url}/login`);
  assert.equal((await fetch(`${url}/api/state`, { headers: { cookie: `${cookie.name}=${cookie.value}` } })).status, 401, 'the old cookie no longer works');
  await page.goto(`${url}/`);
  assert.equal(new URL(page.url()).pathname, '/login');
  await context.close();
});

/** POST /api/login from a chosen loopback address (the page sees each as another client). */
function loginFrom(localAddress: string, username: string, password: string): Promise<{ status: number; text: string }> {
  const body = JSON.stringify({ username, password });
  return new Promise((resolve, reject) => {
    const target = new URL(`${url}/api/login`);
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('guesses from five addresses at once do not exhaust the controller\'s per-address budget for the page: an operator still logs in', { timeout: 120_000 }, async () => {
  // The operator has logged in from 127.0.0.40 before (the page knows the address for session.ttl).
  assert.equal((await loginFrom('127.0.0.40', adminCredentials.username, adminCredentials.password)).status, 200);
  // Ten guesses from each of five addresses, all at once, each at another user name (so the controller's per-user
  // budget is not what stops them): every one reaches the controller from the page's one address.
  const guesses = await Promise.all(Array.from({ length: 50 }, (_, i) => loginFrom(`127.0.0.${41 + (i % 5)}`, `guessed-user-${i}`, 'wrong-password')));
  const statuses = guesses.map((guess) => guess.status);
  assert.ok(statuses.every((status) => status === 401 || status === 429), JSON.stringify(statuses));
  assert.ok(statuses.filter((status) => status === 401).length <= 40, `the page let at most its 40 through: ${JSON.stringify(statuses)}`);
  // The controller (50 refusals per address) never refused the page's address: the operator gets in.
  const operator = await loginFrom('127.0.0.40', adminCredentials.username, adminCredentials.password);
  assert.equal(operator.status, 200, operator.text);
});
