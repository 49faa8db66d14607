// An OIDC login in a real browser, as an admin console does it: Chromium follows the authorization request to the
// controller's sign-in page, a wrong password shows the page again with an error, the right one is sent on through
// the callback to the console's loopback redirect URI; openid-client (the console's side) exchanges the code, and
// the access token reaches the Management API as an admin.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import * as client from 'openid-client';
import { adminCredentials, ControllerFixture } from './support/controller-fixture.ts';
import { launchChromium } from './support/status-page-process.ts';
import { relyingParty } from './support/oidc-user-agent.ts';

let controller: ControllerFixture;
let browser: Browser;
let callbackServer: Server;
let callbackPort = 0;
const callbacks: string[] = [];

before(async () => {
  controller = await ControllerFixture.create();
  browser = await launchChromium();
  callbackServer = createServer((req, res) => {
    // The browser asks for a favicon too: only the redirect counts.
    if (req.url?.startsWith('/auth/callback')) callbacks.push(req.url);
    res.setHeader('content-type', 'text/plain');
    res.end('signed in: you may close this window');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', () => resolve()));
  callbackPort = (callbackServer.address() as { port: number }).port;
  // The controller signs once its key is committed.
  for (let i = 0; i < 100 && ((await controller.http.get(`${controller.origin}/oidc/keys`)).json?.keys?.length ?? 0) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
});

after(async () => {
  await browser?.close();
  callbackServer?.close();
  await controller?.dispose();
});

test('an admin signs in through the browser form; a wrong password is shown the form again', async () => {
  const config = await relyingParty(controller.http, controller.origin);
  const redirectUri = `http://127.0.0.1:${callbackPort}/auth/callback`;
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid offline_access', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce });
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(url.href);
  assert.match(page.url(), /\/oidc\/login\/username\?authRequestID=/);
  await page.fill('#username', adminCredentials.username);
  await page.fill('#password', 'not-the-password');
  await page.click('button[type=submit]');
  await page.waitForSelector('[role=alert]');
  assert.match(await page.textContent('[role=alert]') ?? '', /username or password is not right/);
  await page.fill('#username', adminCredentials.username);
  await page.fill('#password', adminCredentials.password);
  await Promise.all([page.waitForURL(/127\.0\.0\.1:\d+\/auth\/callback/), page.click('button[type=submit]')]);
  assert.match(await page.textContent('body') ?? '', /signed in/);
  await context.close();
  assert.equal(callbacks.length, 1);
  const tokens = await client.authorizationCodeGrant(config, new URL(`http://127.0.0.1:${callbackPort}${callbacks[0]}`), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  const identities = await controller.http.get(`${controller.managementApi}/identities`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal(identities.status, 200, identities.text);
  assert.ok(identities.json.data.some((identity: { isAdmin: boolean }) => identity.isAdmin));
});

test('the sign-in page escapes what it echoes, and a form for an unknown request is the text answer', async () => {
  const forged = await controller.http.get(`${controller.origin}/oidc/login/username?authRequestID=${encodeURIComponent('"><script>alert(1)</script>')}`, { headers: { accept: 'text/html' } });
  assert.equal(forged.status, 200);
  assert.doesNotMatch(forged.text, /<script>/);
  const wrong = await controller.http.post(`${controller.origin}/oidc/login/password`, { headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'id=%22%3E%3Cscript%3E&username=a&password=b' });
  assert.equal(wrong.status, 401);
  assert.doesNotMatch(wrong.text, /<script>/);
});
