// MFA TOTP end to end against a real controller over HTTPS, as a user with an authenticator app would do it. Codes
// come from the test's own RFC 6238 generator (test/support/authenticator-app.ts), fed only the provisioning URL.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { AuthenticatorApp, parseProvisioningUrl } from './support/authenticator-app.ts';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch } from './support/log-watch.ts';
import { clientService, openSession, OverlaySetup } from './support/overlay-setup.ts';

let controller: ControllerFixture;
let admin: { 'zt-session': string };
before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
});
after(async () => controller?.dispose());

// jsqr is CommonJS: its module object is the function itself at run time, whatever its typings say.
const jsQR = jsQRModule as unknown as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;

const client = (path: string) => `${controller.clientApi}${path}`;
const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function createUser(name: string, authPolicyId?: string): Promise<string> {
  const created = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name, type: 'User', isAdmin: false, ...(authPolicyId ? { authPolicyId } : {}) } });
  assert.equal(created.status, 201, created.text);
  const auth = await controller.http.post(mgmt('/authenticators'), { headers: admin, body: { method: 'updb', identityId: created.json.data.id, username: name, password: `${name}-password` } });
  assert.equal(auth.status, 201, auth.text);
  return created.json.data.id as string;
}

async function login(name: string) {
  const response = await controller.http.post(client('/authenticate?method=password'), { body: { username: name, password: `${name}-password` } });
  assert.equal(response.status, 200, response.text);
  return { token: response.json.data.token as string, session: response.json.data, headers: { 'zt-session': response.json.data.token as string } };
}

/** Starts and verifies an enrollment; returns the app and the recovery codes shown while enrolling. */
async function enroll(headers: Record<string, string>): Promise<{ app: AuthenticatorApp; recoveryCodes: string[] }> {
  const started = await controller.http.post(client('/current-identity/mfa'), { headers, body: {} });
  assert.equal(started.status, 201, started.text);
  const detail = await controller.http.get(client('/current-identity/mfa'), { headers });
  const app = AuthenticatorApp.fromUrl(detail.json.data.provisioningUrl);
  const verified = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);
  return { app, recoveryCodes: detail.json.data.recoveryCodes };
}

const mfaQuery = { typeId: 'MFA', provider: 'ziti', format: 'numeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 6, maxLength: 6 };

test('every row of the enrollment state table, through the client API', async () => {
  await createUser('mfa-states');
  const { headers } = await login('mfa-states');

  // not started: GET is 404
  const none = await controller.http.get(client('/current-identity/mfa'), { headers });
  assert.equal(none.status, 404);
  assert.equal(none.json.error.code, 'NOT_FOUND');

  // not started -> in progress: secret and 20 recovery codes
  const started = await controller.http.post(client('/current-identity/mfa'), { headers, body: {} });
  assert.equal(started.status, 201, started.text);
  assert.equal(started.json.data._links.self.href, './current-identity/mfa');
  const progress = await controller.http.get(client('/current-identity/mfa'), { headers });
  assert.equal(progress.status, 200);
  assert.equal(progress.json.data.isVerified, false);
  assert.equal(progress.json.data.recoveryCodes.length, 20);
  assert.equal(new Set(progress.json.data.recoveryCodes).size, 20);
  for (const code of progress.json.data.recoveryCodes) assert.match(code, /^[A-Z2-7]{6}$/);
  const provisioning = parseProvisioningUrl(progress.json.data.provisioningUrl);
  assert.equal(provisioning.issuer, 'edgeward.local');
  assert.equal(provisioning.account, 'mfa-states');
  assert.match(provisioning.secret, /^[A-Z2-7]{16}$/);
  assert.deepEqual(started.json.data.recoveryCodes, progress.json.data.recoveryCodes, 'POST shows the same codes');
  const again = await controller.http.post(client('/current-identity/mfa'), { headers, body: {} });
  assert.equal(again.status, 409);
  assert.equal(again.json.error.code, 'MFA_EXISTS');

  // in progress -> not started: DELETE with an empty code cancels
  const cancelled = await controller.http.delete(client('/current-identity/mfa'), { headers, body: { code: '' } });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal((await controller.http.get(client('/current-identity/mfa'), { headers })).status, 404);

  // a new enrollment after the cancel; a recovery code and a wrong code cannot verify it
  assert.equal((await controller.http.post(client('/current-identity/mfa'), { headers, body: {} })).status, 201);
  const fresh = (await controller.http.get(client('/current-identity/mfa'), { headers })).json.data;
  assert.notEqual(parseProvisioningUrl(fresh.provisioningUrl).secret, provisioning.secret, 'a new secret');
  const app = AuthenticatorApp.fromUrl(fresh.provisioningUrl);
  const byRecovery = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: fresh.recoveryCodes[0] } });
  assert.equal(byRecovery.status, 400);
  assert.equal(byRecovery.json.error.code, 'MFA_INVALID_TOKEN');
  const wrong = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: app.wrongCode() } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.error.code, 'MFA_INVALID_TOKEN');
  const missing = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: {} });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.error.code, 'COULD_NOT_VALIDATE');

  // in progress -> enrolled: a live TOTP code
  const verified = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);
  const enrolled = await controller.http.get(client('/current-identity/mfa'), { headers });
  assert.equal(enrolled.json.data.isVerified, true);
  assert.equal('recoveryCodes' in enrolled.json.data, false, 'no secrets once enrolled');
  assert.equal('provisioningUrl' in enrolled.json.data, false);
  assert.equal((await controller.http.get(client('/current-identity/mfa/qr-code'), { headers })).status, 404, 'no QR code once enrolled');
  assert.equal((await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: await app.nextCode() } })).status, 404);

  // enrolled -> enrolled: a valid code reads and replaces the recovery codes (the header works too)
  const read = await controller.http.get(client('/current-identity/mfa/recovery-codes'), { headers: { ...headers, 'mfa-validation-code': await app.nextCode() } });
  assert.equal(read.status, 200, read.text);
  assert.deepEqual(read.json.data.recoveryCodes, fresh.recoveryCodes);
  const noCode = await controller.http.get(client('/current-identity/mfa/recovery-codes'), { headers });
  assert.equal(noCode.status, 400);
  assert.equal(noCode.json.error.code, 'MFA_INVALID_TOKEN');
  const replaced = await controller.http.post(client('/current-identity/mfa/recovery-codes'), { headers, body: { code: fresh.recoveryCodes[1] } });
  assert.equal(replaced.status, 200, replaced.text);
  const newCodes = replaced.json.data.recoveryCodes as string[];
  assert.equal(newCodes.length, 20);
  assert.ok(newCodes.every((code) => !fresh.recoveryCodes.includes(code)), 'an entirely new list');

  // enrolled -> not started: DELETE needs a valid code; a recovery code from the new list works
  const noProof = await controller.http.delete(client('/current-identity/mfa'), { headers });
  assert.equal(noProof.status, 400);
  assert.equal(noProof.json.error.code, 'MFA_INVALID_TOKEN');
  const oldCode = await controller.http.delete(client('/current-identity/mfa'), { headers, body: { code: fresh.recoveryCodes[2] } });
  assert.equal(oldCode.status, 400, 'replaced recovery codes are void');
  const removed = await controller.http.delete(client('/current-identity/mfa'), { headers: { ...headers, 'mfa-validation-code': newCodes[0]! } });
  assert.equal(removed.status, 200, removed.text);
  assert.equal((await controller.http.get(client('/current-identity/mfa'), { headers })).status, 404);
});

test('an administrator removes any identity\'s enrollment, in progress or enrolled; others cannot', async () => {
  const id = await createUser('mfa-admin-target');
  const { headers } = await login('mfa-admin-target');
  assert.equal((await controller.http.post(client('/current-identity/mfa'), { headers, body: {} })).status, 201);
  const byUser = await controller.http.delete(mgmt(`/identities/${id}/mfa`), { headers });
  assert.equal(byUser.status, 401, 'a non-admin gets 401 on the management API');
  assert.equal((await controller.http.delete(mgmt(`/identities/${id}/mfa`), { headers: admin })).status, 200);
  assert.equal((await controller.http.get(client('/current-identity/mfa'), { headers })).status, 404);
  assert.equal((await controller.http.delete(mgmt(`/identities/${id}/mfa`), { headers: admin })).status, 404, 'nothing left to remove');

  await enroll(headers);
  const detail = await controller.http.get(mgmt(`/identities/${id}`), { headers: admin });
  assert.equal(detail.json.data.isMfaEnabled, true);
  assert.equal((await controller.http.delete(mgmt(`/identities/${id}/mfa`), { headers: admin })).status, 200);
  assert.equal((await controller.http.get(mgmt(`/identities/${id}`), { headers: admin })).json.data.isMfaEnabled, false);
  const next = await login('mfa-admin-target');
  assert.deepEqual(next.session.authQueries, [], 'no MFA challenge after the admin removed it');
});

test('as an authenticator-app user: enroll, log out, log in, answer the MFA query; a recovery code works once', async () => {
  await createUser('mfa-app-user');
  const first = await login('mfa-app-user');
  const { app, recoveryCodes } = await enroll(first.headers);
  assert.equal((await controller.http.delete(client('/current-api-session'), { headers: first.headers })).status, 200);

  const second = await login('mfa-app-user');
  assert.deepEqual(second.session.authQueries, [mfaQuery]);
  assert.equal(second.session.isMfaRequired, true);
  assert.equal(second.session.isMfaComplete, false);
  // Partially authenticated: only the allowed operations.
  assert.equal((await controller.http.get(client('/current-identity'), { headers: second.headers })).status, 401);
  assert.equal((await controller.http.get(client('/current-identity/authenticators'), { headers: second.headers })).status, 401);
  assert.equal((await controller.http.get(client('/current-identity/mfa/recovery-codes'), { headers: second.headers })).status, 401);
  assert.equal((await controller.http.get(client('/current-api-session'), { headers: second.headers })).status, 200);
  assert.equal((await controller.http.get(client('/current-identity/mfa'), { headers: second.headers })).status, 200);
  const wrong = await controller.http.post(client('/authenticate/mfa'), { headers: second.headers, body: { code: app.wrongCode() } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.json.error.code, 'MFA_INVALID_TOKEN');
  const code = await app.nextCode();
  const answered = await controller.http.post(client('/authenticate/mfa'), { headers: second.headers, body: { code } });
  assert.equal(answered.status, 200, answered.text);
  const full = await controller.http.get(client('/current-api-session'), { headers: second.headers });
  assert.deepEqual(full.json.data.authQueries, []);
  assert.equal(full.json.data.isMfaComplete, true);
  assert.equal(full.json.data.token, second.token, 'the same token continues');
  assert.equal((await controller.http.get(client('/current-identity'), { headers: second.headers })).status, 200);

  // The same code again, for another session: refused (one use per time step).
  const third = await login('mfa-app-user');
  const replay = await controller.http.post(client('/authenticate/mfa'), { headers: third.headers, body: { code } });
  assert.equal(replay.status, 400);
  assert.equal(replay.json.error.code, 'MFA_INVALID_TOKEN');
  // A recovery code works once.
  const recovered = await controller.http.post(client('/authenticate/mfa'), { headers: third.headers, body: { code: recoveryCodes[5] } });
  assert.equal(recovered.status, 200, recovered.text);
  const fourth = await login('mfa-app-user');
  const reused = await controller.http.post(client('/authenticate/mfa'), { headers: fourth.headers, body: { code: recoveryCodes[5] } });
  assert.equal(reused.status, 400, 'a used recovery code is consumed');
  assert.equal(reused.json.error.code, 'MFA_INVALID_TOKEN');
  const lowerCase = await controller.http.post(client('/authenticate/mfa'), { headers: fourth.headers, body: { code: recoveryCodes[6]!.toLowerCase() } });
  assert.equal(lowerCase.status, 200, 'recovery codes are not case-sensitive');

  // The management API takes the same answer.
  const management = await controller.http.post(mgmt('/authenticate?method=password'), { body: { username: 'mfa-app-user', password: 'mfa-app-user-password' } });
  const mgmtHeaders = { 'zt-session': management.json.data.token as string };
  assert.deepEqual(management.json.data.authQueries, [mfaQuery]);
  assert.equal((await controller.http.post(mgmt('/authenticate/mfa'), { headers: mgmtHeaders, body: { code: await app.nextCode() } })).status, 200);
});

test('a policy requiring TOTP: an unenrolled identity stays partial, may enroll while partial, and verifying completes the session', async () => {
  const policy = await controller.http.post(mgmt('/auth-policies'), { headers: admin, body: authPolicyBody('require-totp', { secondary: { requireTotp: true } }) });
  assert.equal(policy.status, 201, policy.text);
  await createUser('mfa-required', policy.json.data.id);
  const { session, headers } = await login('mfa-required');
  assert.deepEqual(session.authQueries, [mfaQuery]);
  assert.equal(session.isMfaRequired, false, 'isMfaRequired reflects a verified enrollment, not the policy');
  assert.equal((await controller.http.get(client('/current-identity'), { headers })).status, 401);
  const notEnrolled = await controller.http.post(client('/authenticate/mfa'), { headers, body: { code: '123456' } });
  assert.equal(notEnrolled.status, 409);
  assert.equal(notEnrolled.json.error.code, 'MFA_NOT_ENROLLED');

  const started = await controller.http.post(client('/current-identity/mfa'), { headers, body: {} });
  assert.equal(started.status, 201, 'starting enrollment is allowed while partial');
  const qr = await controller.http.request('GET', client('/current-identity/mfa/qr-code'), { headers: { ...headers, accept: 'image/png' } });
  assert.equal(qr.status, 200);
  assert.equal(qr.headers['content-type'], 'image/png');
  const app = AuthenticatorApp.fromUrl(started.json.data.provisioningUrl);
  const verified = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);
  const now = await controller.http.get(client('/current-api-session'), { headers });
  assert.deepEqual(now.json.data.authQueries, [], 'verifying answered the session\'s MFA query');
  assert.equal(now.json.data.isMfaComplete, true);
  assert.equal((await controller.http.get(client('/current-identity'), { headers })).status, 200);
});

test('the QR code is a PNG that decodes to the provisioning URL', async () => {
  await createUser('mfa-qr');
  const { headers } = await login('mfa-qr');
  const started = await controller.http.post(client('/current-identity/mfa'), { headers, body: {} });
  const response = await new Promise<Buffer>((resolve, reject) => {
    import('node:https').then(({ request }) => {
      const req = request(client('/current-identity/mfa/qr-code'), { headers, ca: controller.caPem }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`status ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    }, reject);
  });
  assert.deepEqual(response.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'PNG signature');
  const png = PNG.sync.read(response);
  assert.equal(png.width, 256);
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  assert.equal(decoded?.data, started.json.data.provisioningUrl);
});

test('wrong MFA codes count toward the policy lockout', async () => {
  const policy = await controller.http.post(mgmt('/auth-policies'), { headers: admin, body: authPolicyBody('mfa-lockout', { updb: { maxAttempts: 3 } }) });
  const id = await createUser('mfa-locked', policy.json.data.id);
  const { headers } = await login('mfa-locked');
  const { app } = await enroll(headers);
  const next = await login('mfa-locked');
  for (let i = 0; i < 3; i++) {
    const wrong = await controller.http.post(client('/authenticate/mfa'), { headers: next.headers, body: { code: app.wrongCode() } });
    assert.equal(wrong.status, 400, `attempt ${i + 1}`);
    assert.equal(wrong.json.error.code, 'MFA_INVALID_TOKEN');
  }
  const identity = await controller.http.get(mgmt(`/identities/${id}`), { headers: admin });
  assert.equal(identity.json.data.disabled, true, 'locked after three wrong codes');
  assert.equal((await controller.http.get(client('/current-api-session'), { headers: next.headers })).status, 401, 'the lockout ended the session');
  const refused = await controller.http.post(client('/authenticate?method=password'), { body: { username: 'mfa-locked', password: 'mfa-locked-password' } });
  assert.equal(refused.status, 401);
  // The logger writes in the background: wait for the line.
  await new LogWatch(controller.logFile).waitFor(0, (record) => record.msg === 'identity locked after failed MFA codes');
});

test('secrets are sealed at rest: neither the TOTP secret nor a recovery code is in the data files, events or logs', async () => {
  await createUser('mfa-at-rest');
  const { headers } = await login('mfa-at-rest');
  const started = await controller.http.post(client('/current-identity/mfa'), { headers, body: {} });
  const secret = parseProvisioningUrl(started.json.data.provisioningUrl).secret;
  const codes = started.json.data.recoveryCodes as string[];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(controller.dataDir);
  files.push(controller.logFile, controller.eventsFile);
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file).toString('latin1');
    } catch {
      continue;
    }
    assert.ok(!text.includes(secret), `the TOTP secret is not in ${file}`);
    for (const code of codes) assert.ok(!text.includes(`"${code}"`), `recovery code ${code} is not in ${file}`);
  }
});

test('an MFA posture check: the service is listed but cannot be dialled until this session has done MFA, and not after its timeout', async () => {
  const overlay = await OverlaySetup.create(controller);
  const { serviceId, policyId, checkId } = await overlay.mfaGuardedService('mfa-guarded', 'mfa-posture');
  const timed = await overlay.mfaGuardedService('mfa-timed', 'mfa-posture', 2);
  await overlay.createUser('mfa-posture-user', 'mfa-posture-user-password', { roleAttributes: ['mfa-posture'] });
  const login = async () => {
    const response = await controller.http.post(client('/authenticate?method=password'), { body: { username: 'mfa-posture-user', password: 'mfa-posture-user-password' } });
    assert.equal(response.status, 200, response.text);
    return { token: response.json.data.token as string, session: response.json.data, headers: { 'zt-session': response.json.data.token as string } };
  };

  // Not enrolled: fully authenticated (the policy does not require TOTP), the service is visible, the check fails.
  const first = await login();
  assert.deepEqual(first.session.authQueries, []);
  const before = await clientService(controller, first.token, serviceId);
  assert.equal(before.status, 200, before.text);
  assert.deepEqual(before.json.data.permissions, ['Dial']);
  const [policyQuery] = before.json.data.postureQueries;
  assert.equal(policyQuery.policyId, policyId);
  assert.equal(policyQuery.isPassing, false);
  assert.equal(policyQuery.postureQueries[0].id, checkId);
  assert.equal(policyQuery.postureQueries[0].queryType, 'MFA');
  assert.equal(policyQuery.postureQueries[0].isPassing, false);
  const refused = await openSession(controller, first.token, serviceId);
  assert.equal(refused.status, 409, refused.text);
  assert.equal(refused.json.error.code, 'INVALID_POSTURE');

  // Enrolling and verifying in this session passes MFA for it: the same session may now dial.
  const { recoveryCodes } = await enroll(first.headers);
  const after = await clientService(controller, first.token, serviceId);
  assert.equal(after.json.data.postureQueries[0].isPassing, true);
  const dial = await openSession(controller, first.token, serviceId, 'Dial');
  assert.equal(dial.status, 201, dial.text);
  assert.equal(dial.json.data.serviceId, serviceId);
  assert.equal(typeof dial.json.data.token, 'string');
  const bind = await openSession(controller, first.token, serviceId, 'Bind');
  assert.equal(bind.status, 400, 'no Bind policy grants it');

  // A timed check passes after MFA and fails once its timeout has gone by.
  assert.equal((await openSession(controller, first.token, timed.serviceId)).status, 201);
  await new Promise((resolve) => setTimeout(resolve, 2300));
  const expired = await clientService(controller, first.token, timed.serviceId);
  assert.equal(expired.json.data.postureQueries[0].isPassing, false);
  assert.equal(expired.json.data.postureQueries[0].postureQueries[0].timeoutRemaining, 0);
  assert.equal((await openSession(controller, first.token, timed.serviceId)).status, 409);

  // A new session of the enrolled identity is partial: it can neither list nor dial until it answers MFA.
  const second = await login();
  assert.deepEqual(second.session.authQueries, [mfaQuery]);
  assert.equal((await controller.http.get(client('/services'), { headers: second.headers })).status, 401);
  assert.equal((await openSession(controller, second.token, serviceId)).status, 401);
  assert.equal((await controller.http.post(client('/authenticate/mfa'), { headers: second.headers, body: { code: recoveryCodes[0] } })).status, 200);
  const listed = await controller.http.get(client('/services'), { headers: second.headers });
  assert.equal(listed.status, 200);
  assert.ok(listed.json.data.some((service: { id: string }) => service.id === serviceId));
  assert.equal((await openSession(controller, second.token, serviceId)).status, 201);
});
