// Authentication policies against a real controller over HTTPS: the default policy, CRUD and its refusals,
// password rules wherever a password is set, a forbidden method, and lockout after failed attempts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { LogWatch } from './support/log-watch.ts';

let controller: ControllerFixture;
let admin: { 'zt-session': string };
before(async () => {
  controller = await ControllerFixture.create();
  admin = { 'zt-session': await controller.adminToken() };
});
after(async () => controller?.dispose());

const mgmt = (path: string) => `${controller.managementApi}${path}`;

async function createPolicy(body: unknown): Promise<string> {
  const created = await controller.http.post(mgmt('/auth-policies'), { headers: admin, body });
  assert.equal(created.status, 201, created.text);
  return created.json.data.id as string;
}

async function createUser(name: string, password: string, authPolicyId?: string): Promise<{ id: string; authenticatorId: string }> {
  const created = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name, type: 'User', isAdmin: false, ...(authPolicyId ? { authPolicyId } : {}) } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const auth = await controller.http.post(mgmt('/authenticators'), { headers: admin, body: { method: 'updb', identityId: id, username: name, password } });
  assert.equal(auth.status, 201, auth.text);
  return { id, authenticatorId: auth.json.data.id as string };
}

/** The identity's detail once it shows as disabled (at most 5 s). */
async function lockedIdentity(id: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const detail = await controller.http.get(mgmt(`/identities/${id}`), { headers: admin });
    if (detail.json.data.disabled === true || Date.now() > deadline) return detail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const passwordLogin = (username: string, password: string) => controller.http.post(`${controller.clientApi}/authenticate?method=password`, { body: { username, password } });

test('the default policy always exists with the real controller values, can be changed, and cannot be deleted', async () => {
  const list = await controller.http.get(mgmt('/auth-policies'), { headers: admin });
  assert.equal(list.status, 200);
  const listed = list.json.data.find((policy: { id: string }) => policy.id === 'default');
  assert.ok(listed, 'default is listed');
  const detail = await controller.http.get(mgmt('/auth-policies/default'), { headers: admin });
  assert.equal(detail.status, 200);
  assert.equal(detail.json.data.name, 'Default');
  assert.deepEqual(detail.json.data.primary, authPolicyBody('Default').primary);
  assert.deepEqual(detail.json.data.secondary, { requireTotp: false, requireExtJwtSigner: null });

  const removed = await controller.http.delete(mgmt('/auth-policies/default'), { headers: admin });
  assert.equal(removed.status, 400);
  assert.equal(removed.json.error.code, 'ENTITY_CAN_NOT_BE_DELETED');

  const patched = await controller.http.patch(mgmt('/auth-policies/default'), { headers: admin, body: { primary: { updb: { minPasswordLength: 9 } } } });
  assert.equal(patched.status, 200, patched.text);
  const changed = await controller.http.get(mgmt('/auth-policies/default'), { headers: admin });
  assert.equal(changed.json.data.primary.updb.minPasswordLength, 9);
  assert.equal(changed.json.data.primary.updb.allowed, true, 'PATCH keeps what it does not name');
  const fresh = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'default-rule-fresh', type: 'User', isAdmin: false } });
  const tooShort = await controller.http.post(mgmt('/authenticators'), { headers: admin, body: { method: 'updb', identityId: fresh.json.data.id, username: 'default-rule-fresh', password: 'eight-ch' } });
  assert.equal(tooShort.status, 400, tooShort.text);
  assert.match(tooShort.json.error.cause.reason, /at least 9 characters/);

  const restored = await controller.http.put(mgmt('/auth-policies/default'), { headers: admin, body: authPolicyBody('Default') });
  assert.equal(restored.status, 200, restored.text);
  assert.equal((await controller.http.get(mgmt('/auth-policies/default'), { headers: admin })).json.data.primary.updb.minPasswordLength, 5);
});

test('auth policies: create, read, PUT, PATCH, delete; bad bodies and references are refused and change nothing', async () => {
  const id = await createPolicy(authPolicyBody('crud-policy', { updb: { maxAttempts: 4 } }));
  const detail = await controller.http.get(mgmt(`/auth-policies/${id}`), { headers: admin });
  assert.equal(detail.status, 200);
  assert.equal(detail.json.data.name, 'crud-policy');
  assert.equal(detail.json.data.primary.updb.maxAttempts, 4);
  assert.equal(detail.json.data._links.self.href, `./auth-policies/${id}`);

  const put = await controller.http.put(mgmt(`/auth-policies/${id}`), { headers: admin, body: authPolicyBody('crud-policy-2', { cert: { allowed: false } }) });
  assert.equal(put.status, 200, put.text);
  const afterPut = await controller.http.get(mgmt(`/auth-policies/${id}`), { headers: admin });
  assert.equal(afterPut.json.data.name, 'crud-policy-2');
  assert.equal(afterPut.json.data.primary.cert.allowed, false);
  assert.equal(afterPut.json.data.primary.updb.maxAttempts, 0, 'PUT replaces the whole policy');

  const before = await controller.http.get(mgmt('/auth-policies'), { headers: admin });
  const bad: Array<[unknown, string]> = [
    [{ name: 'no-primary', secondary: { requireTotp: false } }, 'primary'],
    [authPolicyBody('short-min', { updb: { minPasswordLength: 3 } }), 'primary.updb.minPasswordLength'],
    [authPolicyBody('neg-attempts', { updb: { maxAttempts: -1 } }), 'primary.updb.maxAttempts'],
    [authPolicyBody('bad-signer', { extJwt: { allowedSigners: ['nope'] } }), 'primary.extJwt.allowedSigners'],
    [authPolicyBody('bad-secondary', { secondary: { requireExtJwtSigner: 'nope' } }), 'secondary.requireExtJwtSigner'],
    [authPolicyBody('crud-policy-2'), 'name'],
    [authPolicyBody('Default'), 'name'],
    [{ ...authPolicyBody('typed'), primary: { ...authPolicyBody('typed').primary, cert: { allowed: 'yes', allowExpiredCerts: true } } }, 'primary.cert.allowed'],
  ];
  for (const [body, field] of bad) {
    const response = await controller.http.post(mgmt('/auth-policies'), { headers: admin, body });
    assert.equal(response.status, 400, `${field}: ${response.text}`);
    assert.equal(response.json.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(response.json.error.cause.field, field);
  }
  const badPatch = await controller.http.patch(mgmt(`/auth-policies/${id}`), { headers: admin, body: { primary: { updb: { minPasswordLength: 2 } } } });
  assert.equal(badPatch.status, 400);
  const after = await controller.http.get(mgmt('/auth-policies'), { headers: admin });
  assert.equal(after.json.meta.pagination.totalCount, before.json.meta.pagination.totalCount, 'nothing was created');
  assert.equal((await controller.http.get(mgmt(`/auth-policies/${id}`), { headers: admin })).json.data.primary.updb.minPasswordLength, 5, 'nothing was changed');

  // An identity cannot point at a policy that does not exist; a policy in use cannot be deleted.
  const dangling = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'dangling', type: 'User', isAdmin: false, authPolicyId: 'missing' } });
  assert.equal(dangling.status, 400);
  assert.equal(dangling.json.error.cause.field, 'authPolicyId');
  const user = await createUser('policy-user', 'policy-user-pw', id);
  const inUse = await controller.http.delete(mgmt(`/auth-policies/${id}`), { headers: admin });
  assert.equal(inUse.status, 409);
  assert.equal(inUse.json.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  const identity = await controller.http.get(mgmt(`/identities/${user.id}`), { headers: admin });
  assert.equal(identity.json.data.authPolicyId, id);
  assert.deepEqual(identity.json.data.authPolicy, { id, name: 'crud-policy-2', entity: 'auth-policies', _links: { self: { href: `./auth-policies/${id}` } } });
  assert.equal((await controller.http.patch(mgmt(`/identities/${user.id}`), { headers: admin, body: { authPolicyId: 'default' } })).status, 200);
  const deleted = await controller.http.delete(mgmt(`/auth-policies/${id}`), { headers: admin });
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await controller.http.get(mgmt(`/auth-policies/${id}`), { headers: admin })).status, 404);

  const notAdmin = await controller.login('policy-user', 'policy-user-pw', 'management');
  const forbidden = await controller.http.get(mgmt('/auth-policies'), { headers: { 'zt-session': notAdmin } });
  assert.equal(forbidden.status, 401, 'a non-admin gets 401 on the management API');
});

test('password rules of the policy apply wherever a password is set: admin, the identity itself, updb enrollment', async () => {
  const strict = await createPolicy(authPolicyBody('strict-passwords', { updb: { minPasswordLength: 10, requireNumberChar: true, requireSpecialChar: true, requireMixedCase: true } }));
  const created = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'strict-user', type: 'User', isAdmin: false, authPolicyId: strict } });
  const id = created.json.data.id as string;
  const cases: Array<[string, RegExp]> = [
    ['short1!A', /at least 10 characters/],
    ['no-number-Here!', /must contain a number/],
    ['NoSpecial12345', /must contain a special character/],
    ['lower-case-1!x', /upper and lower case/],
  ];
  for (const [password, reason] of cases) {
    const response = await controller.http.post(mgmt('/authenticators'), { headers: admin, body: { method: 'updb', identityId: id, username: 'strict-user', password } });
    assert.equal(response.status, 400, password);
    assert.equal(response.json.error.cause.field, 'password');
    assert.match(response.json.error.cause.reason, reason);
  }
  const good = await controller.http.post(mgmt('/authenticators'), { headers: admin, body: { method: 'updb', identityId: id, username: 'strict-user', password: 'Good-Pass-123' } });
  assert.equal(good.status, 201, good.text);

  // The identity changing its own password meets the same rules.
  const token = await controller.login('strict-user', 'Good-Pass-123');
  const own = await controller.http.put(`${controller.clientApi}/current-identity/authenticators/${good.json.data.id}`, {
    headers: { 'zt-session': token },
    body: { username: 'strict-user', password: 'weakpassword', currentPassword: 'Good-Pass-123' },
  });
  assert.equal(own.status, 400);
  assert.match(own.json.error.cause.reason, /must contain/);
  assert.equal((await passwordLogin('strict-user', 'Good-Pass-123')).status, 200, 'the old password still works');

  // updb enrollment: the client's chosen password meets the rules of the identity's policy.
  const enrolled = await controller.http.post(mgmt('/identities'), { headers: admin, body: { name: 'strict-enrollee', type: 'User', isAdmin: false, authPolicyId: strict, enrollment: { updb: 'strict-enrollee' } } });
  assert.equal(enrolled.status, 201, enrolled.text);
  const detail = await controller.http.get(mgmt(`/identities/${enrolled.json.data.id}`), { headers: admin });
  const enrollToken = detail.json.data.enrollment.updb.token as string;
  const weak = await controller.http.post(`${controller.clientApi}/enroll/updb?token=${enrollToken}`, { body: { password: 'weakpassword' } });
  assert.equal(weak.status, 400);
  assert.match(weak.json.error.cause.reason, /must contain/);
  const strong = await controller.http.post(`${controller.clientApi}/enroll/updb?token=${enrollToken}`, { body: { password: 'Strong-Pass-42' } });
  assert.equal(strong.status, 200, strong.text);
  assert.equal((await passwordLogin('strict-enrollee', 'Strong-Pass-42')).status, 200);
});

test('a method the policy forbids is refused with INVALID_AUTH even with the right password', async () => {
  const noPasswords = await createPolicy(authPolicyBody('no-passwords', { updb: { allowed: false } }));
  await createUser('no-pw-user', 'no-pw-user-pw', noPasswords);
  const logWatch = new LogWatch(controller.logFile);
  const mark = logWatch.mark();
  const refused = await passwordLogin('no-pw-user', 'no-pw-user-pw');
  assert.equal(refused.status, 401);
  assert.equal(refused.json.error.code, 'INVALID_AUTH');
  // The logger writes in the background: wait for the line rather than read the file at once.
  await logWatch.waitFor(mark, (record) => /^auth policy [^"]+ does not allow password authentication$/.test(String(record.reason)));
  assert.doesNotMatch(readFileSync(controller.logFile, 'utf8'), /no-pw-user-pw/, 'the password never reaches the log');
});

test('lockout: after maxAttempts failures the identity is locked (even for the right password) until an admin enables it', async () => {
  const lockout = await createPolicy(authPolicyBody('lockout-forever', { updb: { maxAttempts: 3, lockoutDurationMinutes: 0 } }));
  const user = await createUser('lockme', 'right-password', lockout);
  // Below the threshold a success resets the count.
  assert.equal((await passwordLogin('lockme', 'wrong-1')).status, 401);
  assert.equal((await passwordLogin('lockme', 'wrong-2')).status, 401);
  assert.equal((await passwordLogin('lockme', 'right-password')).status, 200);
  assert.equal((await passwordLogin('lockme', 'wrong-3')).status, 401);
  assert.equal((await passwordLogin('lockme', 'wrong-4')).status, 401);
  const stillOpen = await controller.http.get(mgmt(`/identities/${user.id}`), { headers: admin });
  assert.equal(stillOpen.json.data.disabled, false, 'two failures after a success do not lock');
  assert.equal((await passwordLogin('lockme', 'wrong-5')).status, 401);

  // The failure count is written without holding up the answer: the lock lands a moment later.
  const locked = await lockedIdentity(user.id);
  assert.equal(locked.json.data.disabled, true);
  assert.equal(locked.json.data.disabledUntil, null, 'lockoutDurationMinutes 0 locks until an admin unlocks');
  const refused = await passwordLogin('lockme', 'right-password');
  assert.equal(refused.status, 401);
  assert.equal(refused.json.error.code, 'INVALID_AUTH');
  // The logger writes in the background: wait for the line.
  const lockLine = await new LogWatch(controller.logFile).waitFor(0, (record) => record.msg === 'identity locked after failed password attempts');
  assert.equal(typeof lockLine.identityId, 'string');

  const enabled = await controller.http.post(mgmt(`/identities/${user.id}/enable`), { headers: admin });
  assert.equal(enabled.status, 200, enabled.text);
  assert.equal((await passwordLogin('lockme', 'right-password')).status, 200);
});

test('lockout with a duration: disabledUntil is set that far ahead; an admin disable ends sessions and enable restores', async () => {
  const timed = await createPolicy(authPolicyBody('lockout-timed', { updb: { maxAttempts: 2, lockoutDurationMinutes: 15 } }));
  const user = await createUser('timed-lock', 'right-password', timed);
  const session = await controller.login('timed-lock', 'right-password');
  const startedAt = Date.now();
  assert.equal((await passwordLogin('timed-lock', 'nope-1')).status, 401);
  assert.equal((await passwordLogin('timed-lock', 'nope-2')).status, 401);
  const detail = await lockedIdentity(user.id);
  assert.equal(detail.json.data.disabled, true);
  const until = Date.parse(detail.json.data.disabledUntil);
  assert.ok(Math.abs(until - (startedAt + 15 * 60_000)) < 30_000, `disabledUntil ${detail.json.data.disabledUntil} is about 15 minutes ahead`);
  const ended = await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': session } });
  assert.equal(ended.status, 401, 'a lockout ends the identity’s API sessions');

  assert.equal((await controller.http.post(mgmt(`/identities/${user.id}/enable`), { headers: admin })).status, 200);
  const fresh = await controller.login('timed-lock', 'right-password');
  const disabled = await controller.http.post(mgmt(`/identities/${user.id}/disable`), { headers: admin, body: { durationMinutes: 0 } });
  assert.equal(disabled.status, 200, disabled.text);
  assert.equal((await controller.http.get(`${controller.clientApi}/current-api-session`, { headers: { 'zt-session': fresh } })).status, 401);
  assert.equal((await passwordLogin('timed-lock', 'right-password')).status, 401);
  const badDisable = await controller.http.post(mgmt(`/identities/${user.id}/disable`), { headers: admin, body: { durationMinutes: -5 } });
  assert.equal(badDisable.status, 400);
  assert.equal((await controller.http.post(mgmt(`/identities/${user.id}/enable`), { headers: admin })).status, 200);
  assert.equal((await passwordLogin('timed-lock', 'right-password')).status, 200);
});

test('members an auth policy does not have are ignored, not stored: unknown keys and __proto__ at any level', async () => {
  const body = authPolicyBody('junk-policy') as Record<string, any>;
  const withJunk = JSON.stringify({ ...body, junk: { a: 1 }, primary: { ...body.primary, updb: { ...body.primary.updb, junk: 'x' } } }).replace(/^\{/, '{"__proto__":{"polluted":true},');
  const created = await controller.http.post(mgmt('/auth-policies'), { headers: { ...admin, 'content-type': 'application/json' }, rawBody: withJunk });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const patched = await controller.http.patch(mgmt(`/auth-policies/${id}`), {
    headers: { ...admin, 'content-type': 'application/json' },
    rawBody: '{"__proto__":{"name":"via-proto"},"secondary":{"junk":1,"__proto__":{"requireTotp":true}},"other":{"x":1}}',
  });
  assert.equal(patched.status, 200, patched.text);
  const detail = (await controller.http.get(mgmt(`/auth-policies/${id}`), { headers: admin })).json.data;
  assert.equal(detail.name, 'junk-policy');
  assert.deepEqual(Object.keys(detail).sort(), ['_links', 'createdAt', 'id', 'name', 'primary', 'secondary', 'tags', 'updatedAt']);
  assert.deepEqual(Object.keys(detail.primary.updb).sort(), ['allowed', 'lockoutDurationMinutes', 'maxAttempts', 'minPasswordLength', 'requireMixedCase', 'requireNumberChar', 'requireSpecialChar']);
  assert.deepEqual(detail.secondary, { requireTotp: false, requireExtJwtSigner: null });
});
