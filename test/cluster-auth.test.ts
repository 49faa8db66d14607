// Authentication state is replicated: in a three-controller cluster of real processes, failed password attempts
// counted through different controllers add up, the lockout survives a SIGKILL of the leader and holds on every
// controller; an enrollment token issued through one controller is redeemed through another, and the enrolled
// certificate logs in through any of them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MemberRow } from '../server/cluster/cluster-service.ts';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { agent, threeControllerCluster, until } from './support/cluster-helpers.ts';
import { ControllerFixture } from './support/controller-fixture.ts';

const pkiRoot = mkdtempSync(join(tmpdir(), 'edgeward-cluster-auth-'));
let nodes: ControllerFixture[] = [];

before(async () => {
  nodes = await threeControllerCluster(pkiRoot);
});
after(async () => {
  await Promise.all(nodes.map((node) => node.dispose()));
  rmSync(pkiRoot, { recursive: true, force: true });
});

const leaderOf = async (node: ControllerFixture) => ((await agent(node, 'cluster.list')) as MemberRow[]).find((row) => row.leader)?.id;
const login = (node: ControllerFixture, username: string, password: string) =>
  node.http.post(`${node.clientApi}/authenticate?method=password`, { body: { username, password } });
/** A login is a write: retry while a follower has not yet learnt a new leader. */
const settledLogin = (node: ControllerFixture, username: string, password: string) =>
  until(`a login answer from ${node.id}`, async () => {
    const response = await login(node, username, password);
    return response.status === 503 ? undefined : response;
  });

test('failed attempts through different controllers add up, and the lockout survives a leader kill on every controller', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  const admin = { 'zt-session': await first.adminToken() };
  const policy = await first.http.post(`${first.managementApi}/auth-policies`, { headers: admin, body: authPolicyBody('cluster-lockout', { updb: { maxAttempts: 4 } }) });
  assert.equal(policy.status, 201, policy.text);
  const user = await first.http.post(`${first.managementApi}/identities`, { headers: admin, body: { name: 'cluster-user', type: 'User', isAdmin: false, authPolicyId: policy.json.data.id } });
  const userId = user.json.data.id as string;
  assert.equal((await first.http.post(`${first.managementApi}/authenticators`, { headers: admin, body: { method: 'updb', identityId: userId, username: 'cluster-user', password: 'right-password' } })).status, 201);

  assert.equal((await settledLogin(second, 'cluster-user', 'wrong-a')).status, 401);
  assert.equal((await settledLogin(third, 'cluster-user', 'wrong-b')).status, 401);

  const leaderId = await leaderOf(first);
  const leader = nodes.find((node) => node.id === leaderId)!;
  const survivors = nodes.filter((node) => node !== leader) as [ControllerFixture, ControllerFixture];
  leader.child!.kill('SIGKILL');
  await until('a new leader', async () => {
    const id = await leaderOf(survivors[0]);
    return id && id !== leaderId ? id : undefined;
  });

  assert.equal((await settledLogin(survivors[0], 'cluster-user', 'wrong-c')).status, 401);
  const beforeLock = await settledLogin(survivors[1], 'cluster-user', 'right-password');
  assert.equal(beforeLock.status, 200, 'three failures across controllers and a leader change are below the limit');
  // A success resets the count; four more failures, alternating controllers, lock the identity.
  for (const [i, password] of ['wrong-d', 'wrong-e', 'wrong-f', 'wrong-g'].entries()) {
    assert.equal((await settledLogin(survivors[i % 2]!, 'cluster-user', password)).status, 401);
  }
  // Counts are written without holding up the answers: wait for the lock to be applied everywhere first.
  for (const node of survivors) {
    const token = await until(`an admin session on ${node.id}`, () => node.adminToken());
    await until(`the lock on ${node.id}`, async () => (await node.http.get(`${node.managementApi}/identities/${userId}`, { headers: { 'zt-session': token } })).json?.data?.disabled === true);
  }
  for (const node of survivors) {
    const refused = await settledLogin(node, 'cluster-user', 'right-password');
    assert.equal(refused.status, 401, `locked on ${node.id}`);
    assert.equal(refused.json.error.code, 'INVALID_AUTH');
  }

  // The killed controller comes back, catches up, and holds the lock too.
  await leader.start();
  const token = await until('the old leader to serve logins again', () => leader.adminToken());
  const detail = await until('the lock to reach the restarted controller', async () => {
    const response = await leader.http.get(`${leader.managementApi}/identities/${userId}`, { headers: { 'zt-session': token } });
    return response.status === 200 && response.json.data.disabled === true ? response : undefined;
  });
  assert.equal(detail.json.data.disabledUntil, null);
  assert.equal((await settledLogin(leader, 'cluster-user', 'right-password')).status, 401);
});

test('an enrollment token issued through one controller is redeemed through another; the certificate logs in anywhere', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  const admin = { 'zt-session': await until('an admin session on ctrl1', () => first.adminToken()) };
  const created = await until('an identity created through ctrl1', async () => {
    const response = await first.http.post(`${first.managementApi}/identities`, { headers: admin, body: { name: 'cluster-device', type: 'Device', isAdmin: false, enrollment: { ott: true } } });
    return response.status === 201 ? response : undefined;
  });
  const identityId = created.json.data.id as string;
  const detail = await first.http.get(`${first.managementApi}/identities/${identityId}`, { headers: admin });
  const token = detail.json.data.enrollment.ott.token as string;

  const dir = mkdtempSync(join(tmpdir(), 'edgeward-cluster-enroll-'));
  try {
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=cluster-device', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'csr.pem')], { stdio: 'ignore' });
    const csr = readFileSync(join(dir, 'csr.pem'), 'utf8');
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const enrolled = await until('the token to reach ctrl2', async () => {
      const response = await second.http.post(`${second.clientApi}/enroll/ott?token=${encodeURIComponent(token)}`, { rawBody: csr, headers: { 'content-type': 'application/x-pem-file' } });
      return response.status === 200 ? response : undefined;
    });
    const cert = enrolled.json.data.cert as string;
    const reused = await third.http.post(`${third.clientApi}/enroll/ott?token=${encodeURIComponent(token)}`, { rawBody: csr, headers: { 'content-type': 'application/x-pem-file' } });
    assert.equal(reused.status, 400, 'the token is single-use across the cluster');
    assert.equal(reused.json.error.code, 'INVALID_ENROLLMENT_TOKEN');
    for (const node of nodes) {
      const session = await until(`a certificate login through ${node.id}`, async () => {
        const response = await node.http.post(`${node.clientApi}/authenticate?method=cert`, { body: {}, cert, key });
        return response.status === 200 ? response : undefined;
      });
      assert.equal(session.json.data.identity.id, identityId);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a TOTP code accepted through one controller is refused through another; enrollment is readable everywhere', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  const admin = { 'zt-session': await until('an admin session on ctrl1', () => first.adminToken()) };
  const user = await until('the identity created', async () => {
    const response = await first.http.post(`${first.managementApi}/identities`, { headers: admin, body: { name: 'cluster-mfa', type: 'User', isAdmin: false } });
    return response.status === 201 ? response : undefined;
  });
  const password = await first.http.post(`${first.managementApi}/authenticators`, { headers: admin, body: { method: 'updb', identityId: user.json.data.id, username: 'cluster-mfa', password: 'cluster-mfa-pw' } });
  assert.equal(password.status, 201, password.text);
  // A follower may not have applied the new password yet: its first answers can be 401.
  const session = await until('a login through ctrl2', async () => {
    const response = await login(second, 'cluster-mfa', 'cluster-mfa-pw');
    return response.status === 200 ? response : undefined;
  });
  const headers = { 'zt-session': session.json.data.token as string };
  const started = await second.http.post(`${second.clientApi}/current-identity/mfa`, { headers, body: {} });
  assert.equal(started.status, 201, started.text);
  const app = AuthenticatorApp.fromUrl(started.json.data.provisioningUrl);
  // Enrolled through ctrl2 (its secret sealed there), verified through ctrl3: the controllers share the MFA key.
  await until('the enrollment on ctrl3', async () => (await third.http.get(`${third.clientApi}/current-identity/mfa`, { headers })).status === 200);
  const verified = await third.http.post(`${third.clientApi}/current-identity/mfa/verify`, { headers, body: { code: await app.nextCode() } });
  assert.equal(verified.status, 200, verified.text);
  const code = await app.nextCode();
  const onFirst = await settledLogin(first, 'cluster-mfa', 'cluster-mfa-pw');
  assert.equal(onFirst.status, 200, onFirst.text);
  const answered = await first.http.post(`${first.clientApi}/authenticate/mfa`, { headers: { 'zt-session': onFirst.json.data.token }, body: { code } });
  assert.equal(answered.status, 200, answered.text);
  for (const node of [second, third]) {
    const other = await settledLogin(node, 'cluster-mfa', 'cluster-mfa-pw');
    const replay = await node.http.post(`${node.clientApi}/authenticate/mfa`, { headers: { 'zt-session': other.json.data.token }, body: { code } });
    assert.equal(replay.status, 400, `replay through ${node.id}`);
    assert.equal(replay.json.error.code, 'MFA_INVALID_TOKEN');
  }
});

test('under the default policy, wrong MFA codes given through different controllers add up to one limit, which locks the identity on every controller', async () => {
  const [first, second, third] = nodes as [ControllerFixture, ControllerFixture, ControllerFixture];
  const admin = { 'zt-session': await until('an admin session on ctrl1', () => first.adminToken()) };
  const user = await until('the identity created', async () => {
    const response = await first.http.post(`${first.managementApi}/identities`, { headers: admin, body: { name: 'cluster-mfa-guessed', type: 'User', isAdmin: false } });
    return response.status === 201 ? response : undefined;
  });
  const userId = user.json.data.id as string;
  assert.equal(user.json.data.authPolicyId ?? 'default', 'default');
  const password = await first.http.post(`${first.managementApi}/authenticators`, { headers: admin, body: { method: 'updb', identityId: userId, username: 'cluster-mfa-guessed', password: 'cluster-mfa-guessed-pw' } });
  assert.equal(password.status, 201, password.text);
  const enrolling = await until('a login through ctrl1', async () => {
    const response = await login(first, 'cluster-mfa-guessed', 'cluster-mfa-guessed-pw');
    return response.status === 200 ? response : undefined;
  });
  const enrollHeaders = { 'zt-session': enrolling.json.data.token as string };
  const started = await first.http.post(`${first.clientApi}/current-identity/mfa`, { headers: enrollHeaders, body: {} });
  assert.equal(started.status, 201, started.text);
  const app = AuthenticatorApp.fromUrl(started.json.data.provisioningUrl);
  assert.equal((await first.http.post(`${first.clientApi}/current-identity/mfa/verify`, { headers: enrollHeaders, body: { code: await app.nextCode() } })).status, 200);

  // One partial session; five wrong codes (the default maxFailedCodes), alternating controllers. Each controller
  // alone has seen fewer than five.
  const partial = await settledLogin(first, 'cluster-mfa-guessed', 'cluster-mfa-guessed-pw');
  assert.equal(partial.status, 200, partial.text);
  const headers = { 'zt-session': partial.json.data.token as string };
  for (const [i, node] of [first, second, third, first, second].entries()) {
    // A follower may not have applied the session yet: its first answers can be 401.
    const wrong = await until(`wrong code ${i + 1} through ${node.id}`, async () => {
      const response = await node.http.post(`${node.clientApi}/authenticate/mfa`, { headers, body: { code: app.wrongCode() } });
      return response.status === 401 ? undefined : response;
    });
    assert.equal(wrong.status, 400, `code ${i + 1} through ${node.id}: ${wrong.text}`);
    assert.equal(wrong.json.error.code, 'MFA_INVALID_TOKEN');
  }
  for (const node of nodes) {
    const token = await until(`an admin session on ${node.id}`, () => node.adminToken());
    const detail = await until(`the lock on ${node.id}`, async () => {
      const response = await node.http.get(`${node.managementApi}/identities/${userId}`, { headers: { 'zt-session': token } });
      return response.json?.data?.disabled === true ? response : undefined;
    });
    // Locked for the default lockoutDuration (15 min), not until an admin acts.
    const lockedFor = Date.parse(detail.json.data.disabledUntil) - Date.parse(detail.json.data.disabledAt);
    assert.equal(lockedFor, 15 * 60_000, `on ${node.id}`);
    assert.equal((await settledLogin(node, 'cluster-mfa-guessed', 'cluster-mfa-guessed-pw')).status, 401, `no login through ${node.id}`);
  }
});
