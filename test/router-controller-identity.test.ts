// A router knows its controllers by their certificates, as separate processes: `./edgeward router enroll` refuses
// an enrollment JWT from a server presenting a router's certificate of the same CA (it signed the JWT with that
// router's key), and `./edgeward router run` refuses such a server on its control channel, says it no hello, logs it
// and goes on to the next controller. The impostor is a fake controller (test/support/fake-controller.ts) that would
// otherwise enroll and welcome the router.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signCertificateRequest } from '../common/pki/client-certificate.ts';
import { generateKeyPair, privateKeyToPem } from '../common/pki/key-pair.ts';
import { initPki, loadIssuer } from '../common/pki/pki-directory.ts';
import { ecdsaWithSha256, x509 } from '../common/pki/x509-runtime.ts';
import { FakeController } from './support/fake-controller.ts';
import { freePort } from './support/free-port.ts';
import { RouterRun, runEdgeward } from './support/router-fixture.ts';

let dir: string;
let configFile: string;
let genuine: FakeController;
let impostor: FakeController;
let router: RouterRun | undefined;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeward-router-ctrl-identity-'));
  const pkiDir = join(dir, 'controller-pki');
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  genuine = await FakeController.start({ id: 'ctrl-a', pkiDir });
  // A router's server certificate exactly as enrollment issues it: same CA, 127.0.0.1, the router SPIFFE id.
  const keys = await generateKeyPair();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=router-x', keys, signingAlgorithm: ecdsaWithSha256 });
  const routerServer = await signCertificateRequest(await loadIssuer(pkiDir), csr.toString('pem'), {
    usage: 'server',
    commonName: 'router-x',
    ipAddresses: ['127.0.0.1'],
    spiffeId: 'spiffe://edgeward.test/router/router-x',
  });
  impostor = await FakeController.start({ id: 'ctrl-z', pkiDir, certificate: { chainPem: routerServer.chainPem, keyPem: await privateKeyToPem(keys.privateKey) } });
  configFile = join(dir, 'router.yml');
  const edgePort = await freePort();
  writeFileSync(
    configFile,
    `v: 3
identity:
  cert: pki/router.cert
  server_cert: pki/router.server.cert
  key: pki/router.key
  ca: pki/ca.pem
ctrl:
  endpoint: ${genuine.ctrlAddress}
  heartbeats: {sendInterval: 1s, checkInterval: 100ms, closeUnresponsiveTimeout: 3s}
edge:
  csr:
    sans: {dns: [localhost], ip: [127.0.0.1]}
listeners:
  - binding: edge
    address: tls:127.0.0.1:${edgePort}
    options: {advertise: 127.0.0.1:${edgePort}}
`,
  );
});

after(async () => {
  await router?.stop();
  await genuine?.kill();
  await impostor?.kill();
  rmSync(dir, { recursive: true, force: true });
});

function jwtFile(name: string, jwt: string): string {
  const path = join(dir, name);
  writeFileSync(path, `${jwt}\n`);
  return path;
}

describe('a router refuses a server that is not a controller', { timeout: 120_000 }, () => {
  it('router enroll refuses a JWT from a server presenting a router certificate of the same CA, and writes nothing', async () => {
    const result = await runEdgeward(['router', 'enroll', configFile, '--jwt', jwtFile('impostor.jwt', await impostor.createEnrollmentJwt('router-1'))]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /the server at https:\/\/127\.0\.0\.1:\d+ is not a controller: its certificate is a router's \(spiffe:\/\/edgeward\.test\/router\/router-x\), not a controller's: refusing to enroll with it/);
    assert.deepEqual(impostor.enrolled, []);
    assert.equal(existsSync(join(dir, 'pki', 'router.cert')), false);
  });

  it('router run refuses the impostor on its control channel, says it no hello, and connects to the next controller', async () => {
    const jwt = await genuine.createEnrollmentJwt('router-1', { ctrlAddresses: [impostor.ctrlAddress, genuine.ctrlAddress] });
    const enrolled = await runEdgeward(['router', 'enroll', configFile, '--jwt', jwtFile('router-1.jwt', jwt)]);
    assert.equal(enrolled.code, 0, enrolled.stderr);

    router = RouterRun.start(configFile);
    const refusal = await router.waitForLog((line) => line.msg === "controller refused: its certificate is not a controller's", 30_000, 'the refusal');
    assert.equal(refusal.endpoint, impostor.ctrlAddress);
    assert.equal(refusal.level, 'warn');
    assert.match(String(refusal.reason), /its certificate is a router's \(spiffe:\/\/edgeward\.test\/router\/router-x\), not a controller's/);
    const established = await router.waitForLog((line) => line.msg === 'control channel established', 30_000, 'the channel to the genuine controller');
    assert.equal(established.endpoint, genuine.ctrlAddress);
    assert.equal(established.controllerId, 'ctrl-a');
    await genuine.waitFor((entry) => entry.message.type === 'router.hello', 10_000, 'the hello');
    assert.equal(impostor.messages('router.hello').length, 0, 'the impostor heard no hello');
    assert.deepEqual(
      router.lines.filter((line) => line.msg === 'control channel established').map((line) => line.endpoint),
      [genuine.ctrlAddress],
    );
  });
});
