// `edgeward edge enroll <jwt> --out id.json` as its own process against a real controller: the identity file it
// writes is OpenZiti's (ztAPI at the controller's root, pem: key, cert and CA), its certificate and key log in with
// `POST /authenticate?method=cert` at the root, and its CA bundle verifies the controller; and each way it can go
// wrong (used, expired, forged token; unreachable controller; an existing file) fails clearly and spends nothing.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import { CertAuthClient } from './support/cert-auth-client.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { curl } from './support/curl-client.ts';
import { runEdgeCli } from './support/edge-cli-scenario.ts';
import { freePort } from './support/free-port.ts';

let controller: ControllerFixture;
let kit: CertAuthClient;
let dir: string;

before(async () => {
  controller = await ControllerFixture.create();
  kit = await CertAuthClient.create(controller);
  dir = kit.workbench.dir;
});
after(async () => controller?.dispose());

async function createIdentity(name: string, enrollment: Record<string, unknown>): Promise<{ id: string; jwtFile: string; jwt: string }> {
  const created = await controller.http.post(kit.mgmt('/identities'), { headers: kit.admin, body: { name, type: 'Device', isAdmin: false, enrollment } });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const detail = await kit.identity(id);
  const method = Object.keys(detail.enrollment)[0]!;
  const jwt = detail.enrollment[method].jwt as string;
  const jwtFile = join(dir, `${name}.jwt`);
  writeFileSync(jwtFile, `${jwt}\n`);
  return { id, jwtFile, jwt };
}

/** The identity file's key, cert and CA written to files, as an SDK would load them. */
function credentialsOf(identityFile: string, name: string) {
  const document = JSON.parse(readFileSync(identityFile, 'utf8'));
  const strip = (value: string) => {
    assert.ok(value.startsWith('pem:'), `pem: prefix: ${value.slice(0, 20)}`);
    return value.slice(4);
  };
  return {
    document,
    keyFile: kit.workbench.write(`${name}.id.key`, strip(document.id.key)),
    certFile: kit.workbench.write(`${name}.id.cert`, strip(document.id.cert)),
    caFile: kit.workbench.write(`${name}.id.ca`, strip(document.id.ca)),
  };
}

async function expectCertLoginAtRoot(credentials: { keyFile: string; certFile: string; caFile: string }, identityId: string): Promise<void> {
  // The identity's own id.ca is the only trust: it must verify the controller.
  const response = await curl(`${controller.origin}/authenticate?method=cert`, { caFile: credentials.caFile, certFile: credentials.certFile, keyFile: credentials.keyFile, body: '{}' });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json.data.identityId, identityId);
}

test('enroll writes OpenZiti identity file (mode 0600) whose EC key and certificate log in at the root, trusting its own id.ca', async () => {
  const { id, jwtFile } = await createIdentity('enroll-ec', { ott: true });
  const out = join(dir, 'enroll-ec.json');
  const result = await runEdgeCli(['enroll', jwtFile, '--out', out]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`enrolled identity ${id} with a certificate \\(ott, ECDSA P-384 key\\) at ${controller.origin.replace(/\./g, '\\.')}`));
  assert.equal(statSync(out).mode & 0o777, 0o600);
  const credentials = credentialsOf(out, 'enroll-ec');
  assert.deepEqual(Object.keys(credentials.document), ['ztAPI', 'ztAPIs', 'configTypes', 'id', 'enableHa']);
  assert.equal(credentials.document.ztAPI, controller.origin, 'ztAPI is the controller root, as the C SDK wants it');
  assert.deepEqual(credentials.document.ztAPIs, [controller.origin]);
  assert.deepEqual(Object.keys(credentials.document.id), ['key', 'cert', 'ca']);
  assert.equal(createPrivateKey(readFileSync(credentials.keyFile)).asymmetricKeyDetails?.namedCurve, 'secp384r1');
  const leaf = new X509Certificate(readFileSync(credentials.certFile));
  assert.match(leaf.subject, new RegExp(`CN=${id}`));
  assert.ok(leaf.checkPrivateKey(createPrivateKey(readFileSync(credentials.keyFile))), 'the certificate is for the generated key');
  await expectCertLoginAtRoot(credentials, id);

  // The token is spent: a second enroll is refused by the controller, and writes nothing.
  const again = join(dir, 'enroll-ec-again.json');
  const reused = await runEdgeCli(['enroll', jwtFile, '--out', again]);
  assert.equal(reused.code, 1, reused.stdout);
  assert.match(reused.stderr, /^error: the controller refused the enrollment \(HTTP 4\d\d\): /);
  assert.match(reused.stderr, /used already/);
  assert.equal(existsSync(again), false);
});

test('an existing file is kept without --force and the token stays unspent; --force with --key-alg rsa writes an RSA identity', async () => {
  const { id, jwtFile } = await createIdentity('enroll-rsa', { ott: true });
  const out = join(dir, 'enroll-rsa.json');
  writeFileSync(out, 'keep me');
  const refused = await runEdgeCli(['enroll', jwtFile, '--out', out, '--key-alg', 'rsa']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /enroll-rsa\.json exists: give --force to overwrite it/);
  assert.equal(readFileSync(out, 'utf8'), 'keep me');
  const forced = await runEdgeCli(['enroll', jwtFile, '--out', out, '--key-alg', 'rsa', '--force'], { timeoutMs: 120_000 });
  assert.equal(forced.code, 0, forced.stderr);
  const credentials = credentialsOf(out, 'enroll-rsa');
  const key = createPrivateKey(readFileSync(credentials.keyFile));
  assert.equal(key.asymmetricKeyType, 'rsa');
  assert.equal(key.asymmetricKeyDetails?.modulusLength, 4096);
  await expectCertLoginAtRoot(credentials, id);
});

test('a updb token sets the password given with --password-file; the file holds the controller and its CA only', async () => {
  const { jwtFile } = await createIdentity('enroll-updb', { updb: 'enroll-updb-user' });
  const passwordFile = kit.workbench.write('updb-password', 'a-fine-password\n');
  const missing = await runEdgeCli(['enroll', jwtFile, '--out', join(dir, 'updb-none.json')]);
  assert.equal(missing.code, 2, 'no password to read is a usage error');
  assert.match(missing.stderr, /--password-file/);
  const out = join(dir, 'enroll-updb.json');
  const result = await runEdgeCli(['enroll', jwtFile, '--out', out, '--password-file', passwordFile]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /password \(updb\) for username enroll-updb-user/);
  const document = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(document.ztAPI, controller.origin);
  assert.deepEqual(Object.keys(document.id), ['ca']);
  const token = await controller.login('enroll-updb-user', 'a-fine-password');
  assert.ok(token);
});

test('an expired token is refused before anything is sent', async () => {
  const { jwt } = await createIdentity('enroll-expired', { ott: true });
  // A token whose exp has passed (re-signed, so it would also fail the signature: the expiry is checked first).
  const expired = await new SignJWT({ ...decodeJwt(jwt), exp: Math.floor(Date.now() / 1000) - 60 }).setProtectedHeader({ alg: 'ES256' }).sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const file = kit.workbench.write('expired.jwt', expired);
  const result = await runEdgeCli(['enroll', file, '--out', join(dir, 'expired.json')]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^error: the enrollment token expired at \d{4}-\d\d-\d\dT/);
  assert.equal(existsSync(join(dir, 'expired.json')), false);
});

test('a token signed by another key is refused, and its one-time token is not spent', async () => {
  const { id, jwt, jwtFile } = await createIdentity('enroll-forged', { ott: true });
  const forged = await new SignJWT(decodeJwt(jwt)).setProtectedHeader({ alg: 'ES256' }).sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const file = kit.workbench.write('forged.jwt', forged);
  const result = await runEdgeCli(['enroll', file, '--out', join(dir, 'forged.json')]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^error: the enrollment token's signature does not verify with the key of the certificate the controller at https:\/\/127\.0\.0\.1:\d+ presents/);
  assert.equal(existsSync(join(dir, 'forged.json')), false);
  // The genuine token still enrolls.
  const genuine = await runEdgeCli(['enroll', jwtFile, '--out', join(dir, 'genuine.json')]);
  assert.equal(genuine.code, 0, genuine.stderr);
  await expectCertLoginAtRoot(credentialsOf(join(dir, 'genuine.json'), 'genuine'), id);
});

test('an unreachable controller, a router token and a file that is no JWT each fail with what is wrong', async () => {
  const { jwt } = await createIdentity('enroll-unreachable', { ott: true });
  const closedPort = await freePort();
  const elsewhere = await new SignJWT({ ...decodeJwt(jwt), iss: `https://127.0.0.1:${closedPort}` }).setProtectedHeader({ alg: 'ES256' }).sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const unreachable = await runEdgeCli(['enroll', kit.workbench.write('elsewhere.jwt', elsewhere), '--out', join(dir, 'elsewhere.json')]);
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, new RegExp(`^error: cannot reach the controller at https://127\\.0\\.0\\.1:${closedPort}: ECONNREFUSED`));

  const router = await new SignJWT({ ...decodeJwt(jwt), em: 'erott' }).setProtectedHeader({ alg: 'ES256' }).sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const routerResult = await runEdgeCli(['enroll', kit.workbench.write('router.jwt', router), '--out', join(dir, 'router.json')]);
  assert.equal(routerResult.code, 1);
  assert.match(routerResult.stderr, /edgeward router enroll/);

  const garbage = await runEdgeCli(['enroll', kit.workbench.write('garbage.jwt', 'not a token'), '--out', join(dir, 'garbage.json')]);
  assert.equal(garbage.code, 1);
  assert.match(garbage.stderr, /is not an enrollment JWT/);

  const usage = await runEdgeCli(['enroll']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /enroll takes the enrollment JWT file/);
  const badAlg = await runEdgeCli(['enroll', 'x.jwt', '--key-alg', 'dsa']);
  assert.equal(badAlg.code, 2);
  assert.match(badAlg.stderr, /--key-alg is ec or rsa/);
});
