// The session timeout and activity bookkeeping as a client sees them over HTTPS, with the controller's clock in
// the test's hands.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger } from '../../common/log/logger.ts';
import { ManualClock } from '../../common/time/clock.ts';
import { controllerPaths, initPki, issueControllerCertificate, pkiPaths } from '../../common/pki/pki-directory.ts';
import { currentVersion } from '../../common/version/version-info.ts';
import { freePort } from '../../test/support/free-port.ts';
import { HttpsClient } from '../../test/support/https-client.ts';
import { startController, type RunningController } from './controller.ts';
import { defaultRaftOptions } from './controller-options.ts';

const clock = new ManualClock(Date.UTC(2026, 3, 1, 12));
let root: string;
let controller: RunningController;
let http: HttpsClient;
let base: string;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'edgeward-inproc-'));
  const pkiDir = join(root, 'pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  await issueControllerCertificate(pkiDir, { id: 'inproc', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  const paths = controllerPaths(pkiDir, 'inproc');
  const tls = { certPem: readFileSync(paths.chain, 'utf8'), keyPem: readFileSync(paths.key, 'utf8'), caPem: readFileSync(pkiPaths(pkiDir).bundle, 'utf8') };
  const port = await freePort();
  const ctrlPort = await freePort();
  controller = await startController(
    {
      id: 'inproc',
      dataDir: join(root, 'data'),
      raft: defaultRaftOptions,
      cluster: {
        address: `tls:127.0.0.1:${ctrlPort}`,
        listen: { host: '127.0.0.1', port: ctrlPort },
        trustDomain: 'edgeward.test',
        preferredLeader: false,
        warnWhenLeaderlessForMs: 60_000,
        heartbeat: { sendIntervalMs: 10_000, checkIntervalMs: 1000, closeUnresponsiveTimeoutMs: 30_000 },
        tls,
      },
      webs: [{ name: 'api', bindPoints: [{ interfaceHost: '127.0.0.1', interfacePort: port, address: `127.0.0.1:${port}` }], apis: ['edge-client', 'edge-management', 'health-checks', 'metrics'], tls, maxBodyBytes: 1 << 20, idleTimeoutMs: 5000, readTimeoutMs: 5000, writeTimeoutMs: 100_000, requestTimeoutMs: 30_000, handshakeTimeoutMs: 10_000, maxConnections: 4096, minTlsVersion: 'TLSv1.2', maxTlsVersion: 'TLSv1.3' }],
      sessionTimeoutMs: 30 * 60_000,
      // Long enough that only the test flushes.
      activityUpdateIntervalMs: 3_600_000,
      activityUpdateBatchSize: 250,
      events: [],
      agentSocket: join(root, 'agent.sock'),
    },
    { logger: silentLogger, clock, version: currentVersion() },
  );
  await controller.initialize({ username: 'admin', password: 'admin-password', name: 'Admin' });
  http = new HttpsClient(tls.caPem);
  base = `https://127.0.0.1:${port}/edge/client/v1`;
});

after(async () => {
  http?.close();
  await controller?.close();
  rmSync(root, { recursive: true, force: true });
});

const login = async () => (await http.post(`${base}/authenticate?method=password`, { body: { username: 'admin', password: 'admin-password' } })).json.data.token as string;
const current = (token: string) => http.get(`${base}/current-api-session`, { headers: { 'zt-session': token } });

test('a session ends after 30 minutes without activity, and activity resets the timer', async () => {
  const idle = await login();
  const busy = await login();
  clock.advance(20 * 60_000);
  const touched = await current(busy);
  assert.equal(touched.status, 200);
  assert.equal(touched.json.data.expirationSeconds, 1800, 'activity pushed expiry back to the full timeout');
  clock.advance(10 * 60_000 + 1_000);
  const ended = await current(idle);
  assert.equal(ended.status, 401, '30 minutes idle: ended');
  assert.match(String(ended.headers['www-authenticate']), /error="expired"/);
  const stillBusy = await current(busy);
  assert.equal(stillBusy.status, 200, 'active 10 minutes ago: alive');
  assert.ok(Math.abs(stillBusy.json.data.expirationSeconds - 1800) <= 1);
});

test('requests never write a command each: activity reaches the log as one batched command', async () => {
  const token = await login();
  const applied = () => controller.services.store.appliedIndex();
  await controller.services.sessions.flushActivity();
  const before = applied();
  for (let i = 0; i < 40; i++) assert.equal((await current(token)).status, 200);
  assert.equal(applied(), before, '40 authenticated requests wrote nothing');
  await controller.services.sessions.flushActivity();
  assert.equal(applied(), before + 1, 'one flush, one command');
});

test('expired sessions are swept from the model in one command', async () => {
  await login();
  await login();
  clock.advance(31 * 60_000);
  const before = controller.services.store.appliedIndex();
  const swept = await controller.services.sessions.sweepExpired();
  assert.ok(swept >= 2);
  assert.equal(controller.services.store.appliedIndex(), before + 1);
  assert.equal(controller.services.sessions.list().length, 0);
});

test('a partially authenticated session reaches only current-api-session until its queries are answered', async () => {
  const admin = controller.services.identities.list().find((identity) => identity.isDefaultAdmin)!;
  const { token } = await controller.services.sessions.create({
    identity: admin,
    authenticatorId: controller.services.authenticators.forIdentity(admin.id)[0]!.id,
    authMethod: 'password',
    ipAddress: '127.0.0.1',
    configTypes: [],
    authQueries: [{ typeId: 'MFA', provider: 'ziti', format: 'numeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 6, maxLength: 6 }],
    isMfaRequired: true,
  });
  const headers = { 'zt-session': token };
  const session = await current(token);
  assert.equal(session.status, 200);
  assert.equal(session.json.data.authQueries[0].typeId, 'MFA');
  for (const url of [`${base}/current-identity`, `${base}/current-identity/authenticators`, base.replace('/edge/client/v1', '/edge/management/v1/identities')]) {
    const refused = await http.get(url, { headers });
    assert.equal(refused.status, 401, url);
    assert.equal(refused.json.error.code, 'UNAUTHORIZED');
  }
  assert.equal((await http.delete(`${base}/current-api-session`, { headers })).status, 200, 'logout is allowed while partial');
});
