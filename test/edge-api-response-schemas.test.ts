// Our answers read the way an OpenZiti-generated (go-swagger) client reads them: one of every entity the management
// API serves is created, then every list and detail route of both APIs (enumerated from the route tables, so none is
// missed) is fetched and each response checked against its schema in the bundled spec: required properties, types,
// enums, formats, x-nullable, polymorphic posture checks. The creates, logins, updates and 404s met on the way are
// checked too.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AuthenticatorApp } from './support/authenticator-app.ts';
import { authPolicyBody } from './support/auth-policy-bodies.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { EdgeApiSchemas, type EdgeApi } from './support/edge-api-schemas.ts';
import type { HttpResponse, RequestOptions } from './support/https-client.ts';
import { OpensslWorkbench } from './support/openssl-workbench.ts';
import { edgeApiRoutes } from './support/route-inventory.ts';
import { enrollRouter, ScriptedRouter } from './support/scripted-router.ts';

const schemas: Record<EdgeApi, EdgeApiSchemas> = { management: EdgeApiSchemas.load('management'), client: EdgeApiSchemas.load('client') };

let controller: ControllerFixture;
const problems: string[] = [];
/** `<api> <METHOD> <spec template>` of every response checked with a 2xx status. */
const answered = new Set<string>();

/** Where the real controller itself departs from the spec and we answer as it does (shared reference facts). */
const realControllerDepartures = [
  // §1: "the CA verificationToken is a shortid despite the spec's format: uuid".
  /^management: GET \/cas(\/\{id\})? 200: \/data(\/\d+)?\/verificationToken must match format "uuid"/,
  // 0.29's spec gives this route the service-policy list envelope; the real controller answers service edge router
  // policies there, as we do (docs/api-reference.md): their items lack a service policy's type and role lists.
  /^management: GET \/edge-routers\/\{id\}\/service-edge-router-policies 200: \/data\/\d+ must have required property '(type|identityRoles|identityRolesDisplay|postureCheckRoles|postureCheckRolesDisplay)'$/,
];

/**
 * The spec path a URL is checked as. The host root serves the management spec's `/version` (and `/`) and EST bundle;
 * an API session's sessions (its `_links.sessions`, which the spec does not list) are a management session list.
 */
function apiOf(url: string): { api: EdgeApi; path: string } {
  const { pathname } = new URL(url);
  for (const api of ['management', 'client'] as const) {
    const base = schemas[api].basePath;
    if (pathname === base || pathname.startsWith(`${base}/`)) {
      const path = pathname.slice(base.length) || '/';
      return { api, path: api === 'management' && /^\/api-sessions\/[^/]+\/sessions$/.test(path) ? '/sessions' : path };
    }
  }
  return { api: 'management', path: pathname === '/' ? '/version' : pathname };
}

function check(method: string, url: string, response: HttpResponse): void {
  const { api, path } = apiOf(url);
  const contentType = String(response.headers['content-type'] ?? '');
  const body = contentType.includes('json') ? response.json : response.text;
  const found = schemas[api].problems(method, path, response.status, body).map((problem) => `${api}: ${problem}`);
  problems.push(...found.filter((problem) => !realControllerDepartures.some((departure) => departure.test(problem))));
  if (response.status < 300) answered.add(`${api} ${method} ${schemas[api].templateOf(path)}`);
}

/** A request whose response is checked against the spec; `expect` is the status the scenario needs. */
async function call(method: string, url: string, options: RequestOptions & { expect?: number } = {}): Promise<HttpResponse> {
  const response = await controller.http.request(method, url, options);
  assert.equal(response.status, options.expect ?? (method === 'POST' && !url.includes('/authenticate') ? 201 : 200), `${method} ${url}: ${response.text.slice(0, 400)}`);
  check(method, url, response);
  return response;
}

const ids: Record<string, string> = {};

/** A new self-signed certificate (a CA's when `ca`), as PEM. */
function selfSigned(name: string, ca: boolean): string {
  const extensions = ca ? ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'] : [];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', `/CN=${name}`, ...extensions, '-keyout', join(controller.root, `${name}.key`), '-out', join(controller.root, `${name}.pem`)], { stdio: 'ignore' });
  return readFileSync(join(controller.root, `${name}.pem`), 'utf8');
}
let admin: Record<string, string>;
let user: Record<string, string>;
let hostingRouter: ScriptedRouter | undefined;

before(async () => {
  controller = await ControllerFixture.create();
  const mgmt = (path: string) => `${controller.managementApi}${path}`;
  const client = (path: string) => `${controller.clientApi}${path}`;
  const created = async (path: string, body: unknown) => (await call('POST', mgmt(path), { headers: admin, body })).json.data.id as string;

  const adminLogin = await call('POST', mgmt('/authenticate?method=password'), { body: { username: 'admin', password: 'admin-password-for-tests' } });
  admin = { 'zt-session': adminLogin.json.data.token };

  ids['auth-policies'] = await created('/auth-policies', authPolicyBody('schemas-policy'));
  ids['external-jwt-signers'] = await created('/external-jwt-signers', { name: 'schemas-signer', issuer: 'https://idp.example', audience: 'edge', enabled: true, jwksEndpoint: 'https://idp.example/jwks', externalAuthUrl: 'https://idp.example/login', clientId: 'edge', scopes: ['openid'] });
  ids.cas = await created('/cas', { name: 'schemas-ca', certPem: selfSigned('schemas-ca', true), isAutoCaEnrollmentEnabled: true, isOttCaEnrollmentEnabled: false, isAuthEnabled: true, identityRoles: ['schema-ca'], identityNameFormat: '[caName]-[commonName]', externalIdClaim: { location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'spiffe', parser: 'NONE', parserCriteria: null, index: 0 } });
  await created('/cas', { name: 'schemas-plain-ca', certPem: selfSigned('schemas-plain-ca', true), isAutoCaEnrollmentEnabled: false, isOttCaEnrollmentEnabled: false, isAuthEnabled: false, identityRoles: [] });

  ids.identities = await created('/identities', { name: 'schemas-user', type: 'User', isAdmin: false, roleAttributes: ['schema-users'], externalId: 'schemas-external', tags: { team: 'edge' } });
  ids.authenticators = await created('/authenticators', { method: 'updb', identityId: ids.identities, username: 'schemas-user', password: 'schemas-user-password' });
  await created('/identities', { name: 'schemas-enrollee', type: 'Device', isAdmin: false, enrollment: { ott: true } });
  const holder = await created('/identities', { name: 'schemas-cert-holder', isAdmin: false, authPolicyId: ids['auth-policies'] });
  await created('/authenticators', { method: 'cert', identityId: holder, certPem: selfSigned('schemas-cert-holder', false) });
  const device = await created('/identities', { name: 'schemas-device', isAdmin: false });
  ids.enrollments = await created('/enrollments', { method: 'updb', identityId: device, username: 'schemas-device' });
  await call('POST', mgmt(`/identities/${device}/disable`), { headers: admin, body: { durationMinutes: 60 }, expect: 200 });

  ids['config-types'] = await created('/config-types', { name: 'schemas-type.v1', schema: { type: 'object', properties: { url: { type: 'string' } } } });
  ids.configs = await created('/configs', { name: 'schemas-host', configTypeId: 'NH5p4FpGR', data: { protocol: 'tcp', address: 'localhost', port: 8080 } });
  ids.services = await created('/services', { name: 'schemas-svc', encryptionRequired: true, roleAttributes: ['schema-svc'], maxIdleTimeMillis: 60_000, configs: [ids.configs] });
  ids['posture-checks'] = await created('/posture-checks', { typeId: 'MFA', name: 'schemas-mfa', roleAttributes: ['schema-mfa'], timeoutSeconds: 300, promptOnWake: true });
  ids['service-policies'] = await created('/service-policies', { name: 'schemas-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#schema-users'], serviceRoles: [`@${ids.services}`], postureCheckRoles: [] });
  await created('/service-policies', { name: 'schemas-bind', type: 'Bind', semantic: 'AllOf', identityRoles: [`@${ids.identities}`], serviceRoles: ['#schema-svc'], postureCheckRoles: ['#schema-mfa'] });
  ids['edge-routers'] = await created('/edge-routers', { name: 'schemas-router', roleAttributes: ['schema-routers'], isTunnelerEnabled: true, cost: 10, appData: { site: 'a' } });
  ids['edge-router-policies'] = await created('/edge-router-policies', { name: 'schemas-erp', semantic: 'AnyOf', identityRoles: ['#schema-users'], edgeRouterRoles: [`@${ids['edge-routers']}`] });
  ids['service-edge-router-policies'] = await created('/service-edge-router-policies', { name: 'schemas-serp', semantic: 'AllOf', serviceRoles: ['#schema-svc'], edgeRouterRoles: ['#all'] });

  // A terminator: the tunneler-enabled router enrolls, connects (a scripted control channel) and registers one for
  // the service a Bind policy naming it lets it host.
  await created('/service-policies', { name: 'schemas-router-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: [`@${ids['edge-routers']}`], serviceRoles: [`@${ids.services}`], postureCheckRoles: [] });
  const routerToken = (await call('GET', mgmt(`/edge-routers/${ids['edge-routers']}`), { headers: admin })).json.data.enrollmentToken as string;
  const enrolled = await enrollRouter(controller, new OpensslWorkbench(join(controller.root, 'schemas-router-certs')), ids['edge-routers'], routerToken);
  hostingRouter = await ScriptedRouter.connect(controller.ctrlAddress, controller.caPem, enrolled);
  hostingRouter.hello(enrolled.id);
  await hostingRouter.next('ctrl.welcome');
  hostingRouter.send({ type: 'router.terminator.create', terminators: [{ serviceId: ids.services, address: 'tcp:localhost:8080' }] });
  for (let attempt = 0; !ids.terminators && attempt < 100; attempt++) {
    ids.terminators = (await controller.http.get(mgmt('/terminators'), { headers: admin })).json.data[0]?.id;
    if (!ids.terminators) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(ids.terminators, 'the scripted router registered its terminator');

  for (const collection of Object.keys(ids).filter((name) => name !== 'enrollments' && name !== 'terminators')) {
    await call('PATCH', mgmt(`/${collection}/${ids[collection]}`), { headers: admin, body: { tags: { checked: true }, ...(collection === 'posture-checks' ? { typeId: 'MFA' } : {}) } });
  }

  const userLogin = await call('POST', client('/authenticate?method=password'), { body: { username: 'schemas-user', password: 'schemas-user-password', configTypes: ['all'], envInfo: { os: 'linux' }, sdkInfo: { type: 'test' } } });
  user = { 'zt-session': userLogin.json.data.token };
  ids.sessions = (await call('POST', client('/sessions'), { headers: user, body: { serviceId: ids.services, type: 'Dial' } })).json.data.id;
  ids['api-sessions'] = userLogin.json.data.id;
  // An API-session certificate of the user's session, from an openssl CSR.
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=schemas-session', '-keyout', join(controller.root, 'schemas-session.key'), '-out', join(controller.root, 'schemas-session.csr')], { stdio: 'ignore' });
  ids.certificates = (await call('POST', client('/current-api-session/certificates'), { headers: user, body: { csr: readFileSync(join(controller.root, 'schemas-session.csr'), 'utf8') } })).json.data.id;
  // Built-in catalogues: their ids are fixed.
  ids['identity-types'] = 'Default';
  ids['posture-check-types'] = 'MFA';
  // The fabric views of routers list the edge routers.
  ids.routers = ids['edge-routers']!;
  ids['transit-routers'] = ids['edge-routers']!;
  // The API's own descriptions, the global controller settings, and a revocation of an identity with no sessions.
  ids.specs = 'edge-client';
  ids['controller-settings'] = 'global';
  ids.revocations = await created('/revocations', { id: holder, type: 'IDENTITY' });

  // MFA: the enrollment while it is outstanding (QR code, secrets), then verified (recovery codes).
  await call('POST', client('/current-identity/mfa'), { headers: user, body: {} });
  for (const api of [client, mgmt]) {
    await call('GET', api('/current-identity/mfa'), { headers: user });
    const qr = await call('GET', api('/current-identity/mfa/qr-code'), { headers: user });
    assert.equal(qr.headers['content-type'], 'image/png');
  }
  const enrolment = (await call('GET', client('/current-identity/mfa'), { headers: user })).json.data;
  const app = AuthenticatorApp.fromUrl(enrolment.provisioningUrl);
  await call('POST', client('/current-identity/mfa/verify'), { headers: user, body: { code: await app.nextCode() }, expect: 200 });
  for (const api of [client, mgmt]) await call('GET', api('/current-identity/mfa/recovery-codes'), { headers: { ...user, 'mfa-validation-code': await app.nextCode() } });
  await call('POST', client('/current-identity/mfa/recovery-codes'), { headers: user, body: { code: enrolment.recoveryCodes[0] }, expect: 200 });
});
after(async () => {
  hostingRouter?.socket.destroy();
  await controller?.dispose();
});

/** The id a route's `:id` stands for: the entity of the collection it names. */
function concrete(path: string): string {
  return path.replace(/\/([a-z-]+)\/:id/g, (_, collection: string) => {
    const id = collection === 'authenticators' && path.includes('/current-identity/') ? ids.authenticators : ids[collection];
    assert.ok(id, `no entity was made for ${collection} (${path})`);
    return `/${collection}/${id}`;
  }).replace('/:serviceId', () => `/${ids.services}`);
}

/** Whether the spec lists a 404 answer for this GET route. */
function documents404(routePath: string): boolean {
  const { api, path } = apiOf(`${controller.origin}${routePath}`);
  const template = schemas[api].templateOf(path);
  return schemas[api].operations().some((operation) => operation.method === 'GET' && operation.template === template && operation.statuses.includes(404));
}

test('every list and detail response of both APIs is what a generated client accepts', async () => {
  const routes = edgeApiRoutes(controller.caPem).filter((route) => route.method === 'GET');
  for (const route of routes) {
    const path = concrete(route.path);
    // The current identity's own routes are read as the user (an admin has no MFA); the rest of the management API as admin.
    const headers = path.startsWith(schemas.client.basePath) || path.includes('/current-identity') ? user : admin;
    if (path.includes('/mfa/qr-code') || path.includes('/mfa/recovery-codes')) continue; // read in before(): they need the enrollment's state
    await call('GET', `${controller.origin}${path}`, { headers });
    // An unknown id is 404, checked against the spec where it documents a 404 (0.29 gives /specs/{id} none).
    if (route.path.endsWith('/:id') && documents404(route.path)) await call('GET', `${controller.origin}${route.path.replace(/:id$/, 'no-such-id')}`, { headers, expect: 404 });
  }
  for (const list of ['/identities', '/services', '/edge-routers', '/posture-checks']) {
    await call('GET', `${controller.managementApi}${list}?limit=2&offset=1&sort=name desc&filter=${encodeURIComponent('name contains "schemas"')}`, { headers: admin });
  }

  const missed = routes.map((route) => `${apiOf(`${controller.origin}${route.path}`).api} GET ${schemas[apiOf(`${controller.origin}${route.path}`).api].templateOf(apiOf(`${controller.origin}${route.path}`).path)}`).filter((key) => !answered.has(key));
  assert.deepEqual(missed, [], 'every GET route was answered and checked');
  assert.ok(answered.size > 50, `${answered.size} routes checked`);
  assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join('\n')}`);
});
