// Brute force and login floods against a real controller over HTTPS: refused attempts are throttled per client
// address and per user (429 RATE_LIMITED with Retry-After) on every primary login, every code-taking MFA route and
// the current-identity password change; a wrong current password counts toward the policy's lockout; wrong MFA codes
// lock the identity out even under the default policy (maxAttempts 0); password hashing's queue refuses at once
// when full. Each test speaks from its own loopback address (127.0.0.x), so the per-address counts stay apart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch } from './support/log-watch.ts';

/** Small limits, so each case shows in a few requests. */
const limits = {
  maxFailuresPerAddress: 6,
  maxFailuresPerUser: 4,
  maxFailedCodes: 3,
  lockoutSeconds: 4,
  hashConcurrency: 1,
  hashQueue: 2,
};

let controller: ControllerFixture;
let admin: { 'zt-session': string };
before(async () => {
  controller = await ControllerFixture.create({
    editConfig: (yaml) =>
      yaml
        .replace(/maxFailuresPerAddress: \d+/, `maxFailuresPerAddress: ${limits.maxFailuresPerAddress}`)
        .replace(/maxFailuresPerUser: \d+/, `maxFailuresPerUser: ${limits.maxFailuresPerUser}`)
        .replace(/maxFailedCodes: \d+/, `maxFailedCodes: ${limits.maxFailedCodes}`)
        .replace(/lockoutDuration: \w+/, `lockoutDuration: ${limits.lockoutSeconds}s`)
        .replace(/concurrency: \d+/, `concurrency: ${limits.hashConcurrency}`)
        .replace(/maxQueued: \d+/, `maxQueued: ${limits.hashQueue}`),
  });
  admin = { 'zt-session': await controller.adminToken() };
});
after(async () => controller?.dispose());

const client = (path: string) => `${controller.clientApi}${path}`;
const mgmt = (path: string) => `${controller.managementApi}${path}`;
const passwordLogin = (from: string, username: string, password: string) => controller.http.post(client('/authenticate?method=password'), { body: { username, password }, localAddress: from });

async function createUser(name: string, authPolicyId?: string): Promise<{ id: string; authenticatorId: string; password: string }> {
  const created = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name, type: 'User', isAdmin: false, ...(authPolicyId ? { authPolicyId } : {}) } });
  assert.equal(created.status, 201, created.text);
  const password = `${name}-password`;
  const auth = await controller.http.post(mgmt('/authenticators'), { headers: admin, body: { method: 'updb', identityId: created.json.data.id, username: name, password } });
  assert.equal(auth.status, 201, auth.text);
  return { id: created.json.data.id as string, authenticatorId: auth.json.data.id as string, password };
}

async function session(from: string, name: string): Promise<Record<string, string>> {
  const response = await passwordLogin(from, name, `${name}-password`);
  assert.equal(response.status, 200, response.text);
  return { 'zt-session': response.json.data.token as string };
}

/** Enrolls TOTP for a user; returns the app and the recovery codes. */
async function enroll(from: string, name: string): Promise<{ app: AuthenticatorApp; recoveryCodes: string[] }> {
  const headers = await session(from, name);
  assert.equal((await controller.http.post(client('/current-identity/mfa'), { headers, body: {}, localAddress: from })).status, 201);
  const detail = await controller.http.get(client('/current-identity/mfa'), { headers, localAddress: from });
  const app = AuthenticatorApp.fromUrl(detail.json.data.provisioningUrl);
  const verified = await controller.http.post(client('/current-identity/mfa/verify'), { headers, body: { code: await app.nextCode() }, localAddress: from });
  assert.equal(verified.status, 200, verified.text);
  return { app, recoveryCodes: detail.json.data.recoveryCodes as string[] };
}

/** A 429 in the API's error envelope: RATE_LIMITED, the given cause code, and a whole number of seconds to wait. */
function assertThrottled(response: { status: number; json: any; headers: Record<string, unknown>; text: string }, cause: string, message?: RegExp): number {
  assert.equal(response.status, 429, response.text);
  assert.equal(response.json.error.code, 'RATE_LIMITED');
  assert.equal(response.json.error.message, 'The resource is rate limited and the rate limit has been exceeded. Please try again later');
  assert.equal(response.json.error.cause.code, cause);
  if (message) assert.match(response.json.error.cause.message, message);
  assert.equal(typeof response.json.error.requestId, 'string');
  const retryAfter = String(response.headers['retry-after']);
  assert.match(retryAfter, /^[1-9]\d*$/, 'Retry-After in whole seconds');
  return Number(retryAfter);
}

async function identityDetail(id: string) {
  const detail = await controller.http.get(mgmt(`/identities/${id}`), { headers: admin });
  assert.equal(detail.status, 200, detail.text);
  return detail.json.data;
}

test('password logins: past maxFailuresPerAddress refusals an address gets 429 with Retry-After, even with the right password; successes never count; other addresses go on', async () => {
  const owner = await createUser('throttle-owner');
  // An owner logging in correctly, again and again, is never held up.
  for (let i = 0; i < 20; i++) assert.equal((await passwordLogin('127.0.0.2', 'throttle-owner', owner.password)).status, 200, `success ${i + 1}`);
  // Refusals spread over usernames (unknown ones too), so only the address limit is reached.
  for (let i = 0; i < limits.maxFailuresPerAddress; i++) {
    const refused = await passwordLogin('127.0.0.2', `guess-${i % 3}`, 'not-the-password');
    assert.equal(refused.status, 401, `refusal ${i + 1}`);
    assert.equal(refused.json.error.code, 'INVALID_AUTH');
  }
  const sessionsBefore = (await controller.http.get(mgmt('/api-sessions'), { headers: admin })).json.meta.pagination.totalCount;
  const throttled = await passwordLogin('127.0.0.2', 'throttle-owner', owner.password);
  // One more every window/limit: 5 min / 6 = 50 s.
  const retryAfter = assertThrottled(throttled, 'AUTHENTICATION_THROTTLED', /from this address/);
  assert.ok(retryAfter <= 50, `Retry-After ${retryAfter}`);
  assert.equal((await controller.http.get(mgmt('/api-sessions'), { headers: admin })).json.meta.pagination.totalCount, sessionsBefore, 'a throttled login creates no session');
  assert.equal((await passwordLogin('127.0.0.3', 'throttle-owner', owner.password)).status, 200, 'another address is not held up');
  await new LogWatch(controller.logFile).waitFor(0, (record) => record.msg === 'authentication throttled: too many failed attempts' && record.limit === 'address' && record.address === '127.0.0.2');
  // The refusals are authentication events; the 429, which checked nothing, is not (a flood of them writes nothing).
  await until('the later login\'s event', async () => (authenticationEvents().some((event) => event.remote_address === '127.0.0.3') ? true : undefined));
  const failed = authenticationEvents().filter((event) => event.remote_address === '127.0.0.2' && event.success === false);
  assert.equal(failed.length, limits.maxFailuresPerAddress);
});

function authenticationEvents(): Array<Record<string, unknown>> {
  return readFileSync(controller.eventsFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"namespace":"authentication"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('password logins: past maxFailuresPerUser refusals a username gets 429 from any address; other users are not held up', async () => {
  const target = await createUser('throttle-target');
  await createUser('throttle-bystander');
  for (let i = 0; i < limits.maxFailuresPerUser; i++) {
    assert.equal((await passwordLogin(`127.0.1.${i + 1}`, 'throttle-target', `wrong-${i}`)).status, 401);
  }
  assertThrottled(await passwordLogin('127.0.1.9', 'throttle-target', target.password), 'AUTHENTICATION_THROTTLED', /for this user/);
  assert.equal((await passwordLogin('127.0.1.9', 'throttle-bystander', 'throttle-bystander-password')).status, 200);
});

test('certificate and external-JWT login failures are counted per address too', async () => {
  for (const [method, from, code] of [['cert', '127.0.2.1', 'INVALID_AUTH'], ['ext-jwt', '127.0.2.2', 'UNAUTHORIZED']] as const) {
    for (let i = 0; i < limits.maxFailuresPerAddress; i++) {
      const refused = await controller.http.post(client(`/authenticate?method=${method}`), { body: {}, localAddress: from });
      assert.equal(refused.status, 401, `${method} refusal ${i + 1}`);
      assert.equal(refused.json.error.code, code);
    }
    assertThrottled(await controller.http.post(client(`/authenticate?method=${method}`), { body: {}, localAddress: from }), 'AUTHENTICATION_THROTTLED');
    // Password logins from that address wait as well: it is one count per address.
    assertThrottled(await passwordLogin(from, 'anyone', 'any-password'), 'AUTHENTICATION_THROTTLED');
  }
});

test('a wrong current password on a password change counts toward the policy lockout, like a wrong login', async () => {
  const policy = await controller.http.post(mgmt('/auth-policies'), { headers: admin, body: authPolicyBody('change-lockout', { updb: { maxAttempts: 2, lockoutDurationMinutes: 0 } }) });
  assert.equal(policy.status, 201, policy.text);
  const user = await createUser('change-guesser', policy.json.data.id);
  const headers = await session('127.0.3.1', 'change-guesser');
  const change = (currentPassword: string) =>
    controller.http.patch(client(`/current-identity/authenticators/${user.authenticatorId}`), { headers, body: { password: 'a-new-password', currentPassword }, localAddress: '127.0.3.1' });
  const first = await change('wrong-current-1');
  assert.equal(first.status, 400);
  assert.equal(first.json.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(first.json.error.cause.field, 'currentPassword');
  assert.equal((await change('wrong-current-2')).status, 400);
  const locked = await until('the lockout', async () => ((await identityDetail(user.id)).disabled === true ? true : undefined));
  assert.ok(locked);
  assert.equal((await controller.http.get(client('/current-api-session'), { headers, localAddress: '127.0.3.1' })).status, 401, 'the lockout ended the session');
  assert.equal((await passwordLogin('127.0.3.2', 'change-guesser', user.password)).status, 401, 'locked, even for the right password');
  const line = await new LogWatch(controller.logFile).waitFor(0, (record) => record.msg === 'identity locked after failed password attempts' && record.identityId === user.id);
  assert.equal(line.during, 'password change');
  assert.equal((await controller.http.post(mgmt(`/identities/${user.id}/enable`), { headers: admin, body: {} })).status, 200);
  assert.equal((await passwordLogin('127.0.3.2', 'change-guesser', user.password)).status, 200, 'the old password: nothing was changed');
});

test('password changes are throttled per address and username: past the limit, 429 before the current password is checked', async () => {
  const user = await createUser('change-throttled');
  const headers = await session('127.0.4.1', 'change-throttled');
  const change = (currentPassword: string) =>
    controller.http.put(client(`/current-identity/authenticators/${user.authenticatorId}`), {
      headers,
      body: { username: 'change-throttled', password: 'a-new-password', currentPassword },
      localAddress: '127.0.4.1',
    });
  for (let i = 0; i < limits.maxFailuresPerUser; i++) assert.equal((await change(`wrong-${i}`)).status, 400);
  assertThrottled(await change(user.password), 'AUTHENTICATION_THROTTLED', /for this user/);
  // The username's count is shared with logins: a guess is a guess, wherever it is made.
  assertThrottled(await passwordLogin('127.0.4.2', 'change-throttled', user.password), 'AUTHENTICATION_THROTTLED', /for this user/);
});

test('MFA code routes are throttled per identity; a correct code resets the cluster-wide count of wrong codes', async () => {
  const user = await createUser('mfa-throttled');
  const { app, recoveryCodes } = await enroll('127.0.5.1', 'mfa-throttled');
  const headers = await session('127.0.5.1', 'mfa-throttled');
  const answer = (code: string) => controller.http.post(client('/authenticate/mfa'), { headers, body: { code }, localAddress: '127.0.5.1' });
  // Two wrong codes, a right one (a recovery code), two wrong again: four wrong codes, more than maxFailedCodes
  // (3), but never three in a row, so no lockout.
  for (const code of [app.wrongCode(), app.wrongCode(), recoveryCodes[0]!, app.wrongCode(), app.wrongCode()]) {
    const response = await answer(code);
    assert.equal(response.status, code === recoveryCodes[0] ? 200 : 400, response.text);
  }
  assert.equal((await identityDetail(user.id)).disabled, false, 'a correct code reset the count');
  // Four refusals for this identity on this controller: every code route now answers 429 for it, right code or not.
  assertThrottled(await answer(recoveryCodes[1]!), 'AUTHENTICATION_THROTTLED', /for this user/);
  const read = await controller.http.get(client('/current-identity/mfa/recovery-codes'), { headers: { ...headers, 'mfa-validation-code': app.wrongCode() }, localAddress: '127.0.5.2' });
  assertThrottled(read, 'AUTHENTICATION_THROTTLED', /for this user/);
  const remove = await controller.http.delete(client('/current-identity/mfa'), { headers: { ...headers, 'mfa-validation-code': recoveryCodes[2]! }, localAddress: '127.0.5.3' });
  assertThrottled(remove, 'AUTHENTICATION_THROTTLED', /for this user/);
  assert.equal((await controller.http.get(client('/current-identity/mfa'), { headers, localAddress: '127.0.5.3' })).json.data.isVerified, true, 'the throttled removal changed nothing');
});

test('under the default policy (maxAttempts 0), maxFailedCodes wrong MFA codes lock the identity out until lockoutDuration passes', async () => {
  const user = await createUser('mfa-guessed');
  assert.equal((await identityDetail(user.id)).authPolicyId, 'default');
  const { app, recoveryCodes } = await enroll('127.0.6.1', 'mfa-guessed');
  const headers = await session('127.0.6.1', 'mfa-guessed');
  const started = Date.now();
  for (let i = 0; i < limits.maxFailedCodes; i++) {
    const wrong = await controller.http.post(client('/authenticate/mfa'), { headers, body: { code: app.wrongCode() }, localAddress: '127.0.6.1' });
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal(wrong.json.error.code, 'MFA_INVALID_TOKEN');
  }
  const locked = await identityDetail(user.id);
  assert.equal(locked.disabled, true, 'locked after maxFailedCodes wrong codes');
  const lockedUntil = Date.parse(locked.disabledUntil);
  assert.ok(lockedUntil >= started + limits.lockoutSeconds * 1000 - 1000 && lockedUntil <= Date.now() + limits.lockoutSeconds * 1000 + 1000, `disabledUntil ${locked.disabledUntil}`);
  assert.equal((await controller.http.get(client('/current-api-session'), { headers, localAddress: '127.0.6.1' })).status, 401, 'the lockout ended the session');
  assert.equal((await passwordLogin('127.0.6.2', 'mfa-guessed', user.password)).status, 401, 'no login while locked');
  const line = await new LogWatch(controller.logFile).waitFor(0, (record) => record.msg === 'identity locked after failed MFA codes' && record.identityId === user.id);
  assert.equal(line.attempts, limits.maxFailedCodes);

  // Time resets it: once disabledUntil passes, the password and a right code work again.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lockedUntil - Date.now()) + 200));
  const again = await session('127.0.6.3', 'mfa-guessed');
  const answered = await controller.http.post(client('/authenticate/mfa'), { headers: again, body: { code: recoveryCodes[0] }, localAddress: '127.0.6.3' });
  assert.equal(answered.status, 200, answered.text);
});

test('a burst of concurrent wrong MFA codes gets no more than maxFailedCodes checked: the rest find the identity locked', async () => {
  const user = await createUser('mfa-burst');
  const { app } = await enroll('127.0.9.1', 'mfa-burst');
  const headers = await session('127.0.9.1', 'mfa-burst');
  // Each from its own address, so the per-address throttle stays out of it; the per-identity one counts only after
  // a refusal, and these are all in flight together, on connections opened beforehand so they arrive at once.
  await Promise.all(Array.from({ length: 12 }, (_, i) => controller.http.get(client('/current-api-session'), { headers, localAddress: `127.0.9.${i + 10}` })));
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) => controller.http.post(client('/authenticate/mfa'), { headers, body: { code: app.wrongCode() }, localAddress: `127.0.9.${i + 10}` })),
  );
  const statuses = answers.map((answer) => answer.status);
  assert.equal(statuses.filter((status) => status === 400).length, limits.maxFailedCodes, `statuses ${statuses.join(',')}`);
  assert.ok(statuses.every((status) => status === 400 || status === 401), `statuses ${statuses.join(',')}`);
  assert.equal((await identityDetail(user.id)).disabled, true);
});

test('an administrator ends an MFA lockout by enabling the identity', async () => {
  const user = await createUser('mfa-rescued');
  const { app, recoveryCodes } = await enroll('127.0.7.1', 'mfa-rescued');
  const headers = await session('127.0.7.1', 'mfa-rescued');
  for (let i = 0; i < limits.maxFailedCodes; i++) {
    assert.equal((await controller.http.post(client('/authenticate/mfa'), { headers, body: { code: app.wrongCode() }, localAddress: '127.0.7.1' })).status, 400);
  }
  assert.equal((await identityDetail(user.id)).disabled, true);
  assert.equal((await controller.http.post(mgmt(`/identities/${user.id}/enable`), { headers: admin, body: {} })).status, 200);
  const again = await session('127.0.7.2', 'mfa-rescued');
  assert.equal((await controller.http.post(client('/authenticate/mfa'), { headers: again, body: { code: recoveryCodes[0] }, localAddress: '127.0.7.2' })).status, 200);
});

test('a login flood beyond the hash queue gets 429 at once (PASSWORD_HASH_QUEUE_FULL, Retry-After 1), never a 5xx; the rest log in', async () => {
  await createUser('flood-user');
  const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => passwordLogin(`127.0.8.${(i % 8) + 1}`, 'flood-user', 'flood-user-password')));
  const statuses = answers.map((answer) => answer.status);
  const full = answers.filter((answer) => answer.status === 429);
  assert.ok(full.length > 0, `statuses ${statuses.join(',')}`);
  for (const answer of full) assert.equal(assertThrottled(answer, 'PASSWORD_HASH_QUEUE_FULL'), 1);
  assert.ok(statuses.every((status) => status === 200 || status === 429), `statuses ${statuses.join(',')}`);
  // At most one hashing and two waiting at any moment: most of a burst of 24 is turned away.
  assert.ok(answers.filter((answer) => answer.status === 200).length >= limits.hashConcurrency + limits.hashQueue, `statuses ${statuses.join(',')}`);
  // Nothing is counted against the user or the addresses: the next login goes through.
  assert.equal((await passwordLogin('127.0.8.1', 'flood-user', 'flood-user-password')).status, 200);
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
