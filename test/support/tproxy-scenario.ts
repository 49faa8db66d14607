// The tproxy scenario, run by test/tproxy.test.ts inside a network namespace of its own (`unshare --net`), as root:
// a controller, router r1 with a tproxy-mode tunnel listener (its nameserver on a free port of 127.0.0.1) and router
// r2 hosting the service in front of an HTTP echo server. A client asks r1's nameserver for the service's names and
// connects to the addresses it hands out (and to an IP address the config names): nftables sends each connection to
// r1, which carries it to r2 over their link. Exits 0 when every check passed, 1 (with the reason) otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { Resolver } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEchoServer } from '../../server/demo/echo-server.ts';
import { allowEveryRouter, enrollRouterProcess, managementPoster } from './circuit-routers.ts';
import { until } from './cluster-helpers.ts';
import { ControllerFixture } from './controller-fixture.ts';
import { freePort } from './free-port.ts';
import { RouterRun } from './router-fixture.ts';

const root = mkdtempSync(join(tmpdir(), 'edgeward-tproxy-'));
const cleanups: Array<() => Promise<unknown> | unknown> = [];

function get(host: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: 80, path, agent: false, timeout: 10_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${host}`)));
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  // The IP address the intercept.v1 config names is routable here (as a LAN address would be).
  execFileSync('ip', ['route', 'add', 'local', '10.99.0.0/24', 'dev', 'lo']);
  const controller = await ControllerFixture.create();
  cleanups.push(() => controller.dispose());
  const admin = { 'zt-session': await controller.adminToken() };
  const post = managementPoster(controller, admin);
  const echo = await startEchoServer();
  cleanups.push(() => echo.close());
  const dnsPort = await freePort();
  const linkPort = await freePort();

  const routers: Record<string, { id: string; config: string; run?: RouterRun }> = {};
  for (const [name, tunnel, link] of [
    ['r1', `{mode: tproxy, resolver: "udp://127.0.0.1:${dnsPort}", dnsSvcIpRange: 100.64.0.1/10}`, `link:\n  dialers: [{binding: transport, healthyDialBackoff: {retryBackoffFactor: 2, minRetryInterval: 200ms, maxRetryInterval: 1s}}]`],
    ['r2', '{mode: host}', `link:\n  listeners: [{binding: transport, bind: "tls:127.0.0.1:${linkPort}", advertise: "tls:127.0.0.1:${linkPort}"}]`],
  ] as const) {
    const edgePort = await freePort();
    const yaml = `v: 3
identity: {cert: router.cert, server_cert: router.server.cert, key: router.key, ca: ca.pem}
ctrl:
  endpoint: ${controller.ctrlAddress}
edge:
  csr: {sans: {dns: [localhost], ip: [127.0.0.1]}}
listeners:
  - {binding: edge, address: "tls:127.0.0.1:${edgePort}", options: {advertise: "127.0.0.1:${edgePort}"}}
  - {binding: tunnel, options: ${tunnel}}
dialers: [{binding: transport}]
${link}
`;
    routers[name] = await enrollRouterProcess(controller, admin, join(root, name), yaml, name, { isTunnelerEnabled: true });
  }
  const hostConfig = await post('/configs', { name: 'echo-host', configTypeId: 'host.v1', data: { protocol: 'tcp', address: '127.0.0.1', port: echo.port } });
  const interceptConfig = await post('/configs', {
    name: 'echo-intercept',
    configTypeId: 'intercept.v1',
    data: { protocols: ['tcp'], addresses: ['echo.ziti', '*.wild.ziti', '10.99.0.7'], portRanges: [{ low: 80, high: 80 }] },
  });
  const serviceId = await post('/services', { name: 'echo', encryptionRequired: true, configs: [hostConfig, interceptConfig] });
  await post('/service-policies', { name: 'r2-binds', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${routers.r2!.id}`], serviceRoles: [`@${serviceId}`] });
  await post('/service-policies', { name: 'r1-dials', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${routers.r1!.id}`], serviceRoles: [`@${serviceId}`] });
  await allowEveryRouter(post, 'tproxy');

  for (const router of Object.values(routers)) {
    router.run = RouterRun.start(router.config);
    cleanups.push(() => router.run?.stop());
  }
  const r1 = routers.r1!.run!;
  await r1.waitForLog((line) => line.msg === 'tproxy nameserver started', 30_000, 'the nameserver');
  await r1.waitForLog((line) => line.msg === 'tproxy intercepts' && line.count === 1, 30_000, 'the service intercepted');
  const table = `edgeward_${routers.r1!.id.replace(/[^A-Za-z0-9]/g, '_')}`;
  const rules = execFileSync('nft', ['list', 'table', 'ip', table], { encoding: 'utf8' });
  assert.match(rules, /ip daddr \{ 10\.99\.0\.7, 100\.64\.0\.3 \} tcp dport 80 redirect to :\d+/, rules);
  console.log(rules);

  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${dnsPort}`]);
  assert.deepEqual(await resolver.resolve4('echo.ziti'), ['100.64.0.3']);
  assert.deepEqual(await resolver.resolve4('ECHO.ziti'), ['100.64.0.3'], 'names are case-insensitive');
  await assert.rejects(resolver.resolve4('nope.ziti'), /ENOTFOUND/, 'a name no service intercepts is NXDOMAIN');
  await assert.rejects(resolver.resolve6('echo.ziti'), /ENODATA/, 'no AAAA for an intercepted name');
  const [wild] = await resolver.resolve4('api.wild.ziti');
  assert.equal(wild, '100.64.0.4', 'a name under a wildcard gets the next address');

  await until('the terminator on r2 and the link', async () => (await get('100.64.0.3', '/probe')).includes('/probe'), 30_000);
  assert.equal(await get('100.64.0.3', '/by/name'), 'edgeward demo echo: you asked for /by/name\n');
  assert.equal(await get(wild!, '/by/wildcard'), 'edgeward demo echo: you asked for /by/wildcard\n');
  assert.equal(await get('10.99.0.7', '/by/address'), 'edgeward demo echo: you asked for /by/address\n');
  // More made-up names under the wildcard only add elements to the service's set; the table is not rewritten, and
  // the first name still connects.
  for (let i = 0; i < 50; i++) await resolver.resolve4(`made-up-${i}.wild.ziti`);
  const set = execFileSync('nft', ['list', 'set', 'ip', table, 'w0'], { encoding: 'utf8' });
  assert.equal(set.match(/100\.64\.\d+\.\d+/g)?.length, 51, set);
  assert.equal(await get(wild!, '/by/wildcard-again'), 'edgeward demo echo: you asked for /by/wildcard-again\n');
  const created = r1.lines.filter((line) => line.msg === 'circuit created');
  assert.ok(created.length >= 3, 'each request was a circuit from r1');
  assert.deepEqual(created.at(-1)!.path, [routers.r1!.id, routers.r2!.id]);

  assert.equal(await routers.r1!.run!.stop(), 0);
  assert.throws(() => execFileSync('nft', ['list', 'table', 'ip', table], { stdio: 'pipe' }), 'the rules are gone with the router');
  console.log('tproxy scenario passed');
}

main()
  .then(
    () => 0,
    (error: unknown) => {
      console.error(`tproxy scenario failed: ${(error as Error).stack ?? error}`);
      return 1;
    },
  )
  .then(async (code) => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    process.exit(code);
  });
