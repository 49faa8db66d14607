// `edgeward edge list summary`, the relationship sub-lists (`list identity services <name>`) and `policy-advisor`
// as processes against a real controller over TLS, with one router enrolled and connected (a scripted control
// channel), so the advisor's verdicts cover an online common router, an identity without services and a service
// without identities.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ControllerFixture } from './support/controller-fixture.ts';
import { loginEdgeCliAsAdmin } from './support/edge-cli-admin-login.ts';
import { runEdgeCli } from './support/edge-cli-scenario.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { OverlaySetup } from './support/overlay-setup.ts';
import { enrollRouter, ScriptedRouter } from './support/scripted-router.ts';

let controller: ControllerFixture;
let router: ScriptedRouter | undefined;
let keepAlive: NodeJS.Timeout | undefined;
let env: NodeJS.ProcessEnv;
const password = 'cli-lists-password';

before(async () => {
  controller = await ControllerFixture.create();
  env = await loginEdgeCliAsAdmin(controller, 'cli-lists-session.json');

  const setup = await OverlaySetup.create(controller);
  await setup.createUser('cli-alice', password, { roleAttributes: ['eng'] });
  await setup.createUser('cli-bob', password);
  const web = await setup.createService('cli-web', ['web']);
  await setup.createService('cli-idle');
  await setup.createPolicy({ name: 'cli-dial', type: 'Dial', identityRoles: ['#eng'], serviceRoles: ['#web'] });

  const mgmt = (path: string) => `${controller.managementApi}${path}`;
  const created = await controller.http.post(mgmt('/edge-routers'), { headers: setup.adminHeaders, body: { name: 'cli-router' } });
  assert.equal(created.status, 201, created.text);
  const routerId = created.json.data.id as string;
  // Every identity may use every router, and every service be carried by it (OpenZiti's quick-start policies).
  for (const [path, body] of [
    ['/edge-router-policies', { name: 'cli-all-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] }],
    ['/service-edge-router-policies', { name: 'cli-all-services', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#all'] }],
  ] as const) {
    const policy = await controller.http.post(mgmt(path), { headers: setup.adminHeaders, body });
    assert.equal(policy.status, 201, policy.text);
  }
  const token = (await controller.http.get(mgmt(`/edge-routers/${routerId}`), { headers: setup.adminHeaders })).json.data.enrollmentToken as string;
  const enrolled = await enrollRouter(controller, new OpensslWorkbench(join(controller.root, 'cli-router-certs')), routerId, token);
  router = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, enrolled);
  router.hello(enrolled.id);
  await router.next('ctrl.welcome');
  // The scripted router answers nothing by itself: echo the controller's heartbeats, or it closes the channel after 30 s.
  keepAlive = setInterval(() => {
    for (const beat of router!.take('hb')) router!.send({ type: 'hbAck', sentAt: beat.sentAt });
  }, 500);
  let online = false;
  for (let attempt = 0; !online && attempt < 100; attempt++) {
    online = (await controller.http.get(mgmt(`/edge-routers/${routerId}`), { headers: setup.adminHeaders })).json.data.isOnline === true;
    if (!online) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(online, 'the scripted router is online');
  assert.ok(web);
});
after(async () => {
  clearInterval(keepAlive);
  router?.close();
  await controller?.dispose();
});

const edge = (args: string[]) => runEdgeCli(args, { env });

test('list summary prints each kind of entity with its count, and --json the API data', async () => {
  const table = await edge(['list', 'summary']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /ENTITY TYPE\s*│\s*COUNT/);
  assert.match(table.stdout, /│ services\s+│ 2\s+│/);
  assert.match(table.stdout, /│ servicePolicies\s+│ 1\s+│/);
  assert.match(table.stdout, /│ edgeRouters\s+│ 1\s+│/);
  const json = await edge(['list', 'summary', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const counts = JSON.parse(json.stdout);
  assert.equal(counts.services, 2);
  assert.equal(counts.identities, 3, 'the default admin, alice and bob');
  const wrong = await edge(['list', 'summary', 'extra']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /list summary takes no arguments/);
});

test('sub-lists in ziti edge grammar: list identity services <name>, list service identities <name> <filter>', async () => {
  const services = await edge(['list', 'identity', 'services', 'cli-alice']);
  assert.equal(services.code, 0, services.stderr);
  assert.match(services.stdout, /cli-web/);
  assert.doesNotMatch(services.stdout, /cli-idle/);
  assert.match(services.stdout, /results: 1-1 of 1/);

  const sameInOtherOrder = await edge(['list', 'identity', 'cli-alice', 'services', '--json']);
  assert.equal(sameInOtherOrder.code, 0, sameInOtherOrder.stderr);
  assert.deepEqual(JSON.parse(sameInOtherOrder.stdout).map((row: { name: string }) => row.name), ['cli-web']);

  const filtered = await edge(['list', 'service', 'identities', 'cli-web', 'name = "cli-alice"', '--json']);
  assert.equal(filtered.code, 0, filtered.stderr);
  assert.deepEqual(JSON.parse(filtered.stdout).map((row: { name: string }) => row.name), ['cli-alice']);

  const policies = await edge(['list', 'service-policy', 'identities', 'cli-dial', '--json']);
  assert.deepEqual(JSON.parse(policies.stdout).map((row: { name: string }) => row.name), ['cli-alice']);

  const none = await edge(['list', 'identity', 'services', 'cli-bob']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /results: none/);

  const unknown = await edge(['list', 'identity', 'services', 'nobody']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no identity has the name or id 'nobody'/);
  const missing = await edge(['list', 'identity', 'services']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /list identity services takes the name or id of one identity/);
});

test('policy-advisor identities and services print the verdict of each pair in ziti edge form', async () => {
  const alice = await edge(['policy-advisor', 'identities', 'cli-alice']);
  assert.equal(alice.code, 0, alice.stderr);
  assert.equal(alice.stdout, 'OKAY : cli-alice (1) -> cli-web (1) Common Routers: (1/1) Dial: Y Bind: N\n\n');

  const bob = await edge(['policy-advisor', 'identities', 'cli-bob']);
  assert.equal(bob.stdout, 'ERROR: cli-bob\n  - Identity does not have access to any services. Adjust service policies.\n\n');

  const pair = await edge(['policy-advisor', 'identities', 'cli-bob', 'cli-web']);
  assert.equal(pair.stdout, 'ERROR: cli-bob (1) -> cli-web (1) Common Routers: (1/1) Dial: N Bind: N\n  - Identity does not have access to service. Adjust service policies.\n\n');

  const services = await edge(['policy-advisor', 'services']);
  assert.equal(services.code, 0, services.stderr);
  assert.match(services.stdout, /^ERROR: cli-idle\n {2}- Service is not accessible by any identities\. Adjust service policies\.\n\n/m);
  assert.match(services.stdout, /^OKAY : cli-alice \(1\) -> cli-web \(1\) Common Routers: \(1\/1\) Dial: Y Bind: N\n/m);

  const quiet = await edge(['policy-advisor', 'services', 'cli-web', '-q']);
  assert.equal(quiet.stdout, '', 'every pair of cli-web is OKAY, so -q prints nothing');

  const wrong = await edge(['policy-advisor', 'routers']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /unknown policy-advisor subject 'routers'/);
});
