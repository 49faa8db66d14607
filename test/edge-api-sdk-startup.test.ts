// What an OpenZiti SDK needs from the controller, asked the way the C SDK 1.18.7 asks it (edge-protocol-facts §3c,
// §9): `GET /version` and `POST /authenticate?method=cert` at the controller's root, the EST CA bundle that OpenSSL's
// base64 reader can read, and the service list paged with `configTypes=all`, each service with a string
// `updatedAt` and its configs by type name. Against a real controller process, with curl and the openssl CLI.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CertAuthClient, type ClientCredentials } from './support/cert-auth-client.ts';
import { ControllerFixture } from './support/controller-fixture.ts';
import { curl } from './support/curl-client.ts';
import { pemCertificates } from './support/openssl-workbench.ts';

let controller: ControllerFixture;
let kit: CertAuthClient;
let sdk: ClientCredentials & { identityId: string };
const serviceCount = 30;
const interceptData = { protocols: ['tcp'], addresses: ['echo.sdk.test'], portRanges: [{ low: 80, high: 80 }] };

before(async () => {
  controller = await ControllerFixture.create();
  kit = await CertAuthClient.create(controller);
  sdk = await enrolledIdentity('sdk-client');
  const intercept = await post('/configs', { name: 'sdk-intercept', configTypeId: 'intercept.v1', data: interceptData });
  for (let n = 0; n < serviceCount; n += 1) {
    await post('/services', { name: `sdk-service-${String(n).padStart(2, '0')}`, encryptionRequired: true, roleAttributes: ['sdk'], ...(n === 7 ? { configs: [intercept] } : {}) });
  }
  await post('/service-policies', { name: 'sdk-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${sdk.identityId}`], serviceRoles: ['#sdk'] });
});
after(async () => controller?.dispose());

async function post(path: string, body: Record<string, unknown>): Promise<string> {
  const response = await controller.http.post(kit.mgmt(path), { headers: kit.admin, body });
  assert.equal(response.status, 201, response.text);
  return response.json.data.id as string;
}

async function enrolledIdentity(name: string): Promise<ClientCredentials & { identityId: string }> {
  const identityId = await post('/identities', { name, type: 'Device', isAdmin: false, enrollment: { ott: true } });
  const token = (await kit.identity(identityId)).enrollment.ott.token as string;
  const { keyFile, csrPem } = await kit.workbench.keyAndCsr(name);
  const response = await controller.http.post(kit.client(`/enroll?method=ott&token=${encodeURIComponent(token)}`), {
    headers: { 'content-type': 'text/plain', accept: 'application/x-pem-file' },
    rawBody: csrPem,
  });
  assert.equal(response.status, 200, response.text);
  return { identityId, keyFile, certFile: kit.workbench.write(`${name}.chain.pem`, response.text) };
}

/** GET over curl with the SDK's session token, as JSON. */
async function sdkGet(url: string, token: string): Promise<any> {
  const response = await curl(url, { caFile: kit.caFile, method: 'GET', headers: { 'zt-session': token } });
  assert.equal(response.status, 200, `${url}: ${response.text.slice(0, 300)}`);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/);
  return response.json;
}

test('the C SDK start-up: /version and /authenticate?method=cert at the root, then the client API at the advertised path', async () => {
  const version = await curl(`${controller.origin}/version`, { caFile: kit.caFile, method: 'GET' });
  assert.equal(version.status, 200, version.text);
  const prefix = version.json.data.apiVersions.edge.v1.path as string;
  assert.equal(prefix, '/edge/client/v1', '/version keeps pointing SDKs at the prefixed client API');

  const login = await curl(`${controller.origin}/authenticate?method=cert`, {
    caFile: kit.caFile,
    certFile: sdk.certFile,
    keyFile: sdk.keyFile,
    body: JSON.stringify({ sdkInfo: { type: 'ziti-sdk-c', version: '1.18.7' }, envInfo: { os: 'Linux' } }),
  });
  assert.equal(login.status, 200, login.text);
  assert.equal(login.json.data.identityId, sdk.identityId);
  const token = login.headers['zt-session']!;
  assert.ok(token);

  const identity = (await sdkGet(`${controller.origin}${prefix}/current-identity`, token)).data;
  assert.equal(identity.id, sdk.identityId);
  assert.equal(typeof identity.name, 'string', 'current-identity.name is never null (it becomes the CallerId header)');
  assert.equal(identity.name, 'sdk-client');
  // The same handler at the root: same identity, same envelope.
  const atRoot = await sdkGet(`${controller.origin}/current-identity`, token);
  assert.deepEqual(atRoot.data, identity);
  assert.deepEqual((await sdkGet(`${controller.origin}/current-api-session`, token)).data.id, login.json.data.id);
});

test('every client operation answers at the root as under /edge/client/v1, and nothing else at the root changes meaning', async () => {
  const token = (await kit.expectLogin(sdk, sdk.identityId)).token as string;
  const headers = { 'zt-session': token };
  const get = (path: string, extra: Record<string, string> = {}) => controller.http.get(`${controller.origin}${path}`, { headers: { ...headers, ...extra } });

  for (const path of ['/current-identity/edge-routers', '/current-api-session/service-updates', '/services?limit=3', '/external-jwt-signers']) {
    const [root, prefixed] = [await get(path), await get(`/edge/client/v1${path}`)];
    assert.equal(root.status, 200, `${path}: ${root.text.slice(0, 200)}`);
    assert.deepEqual(root.json.data, prefixed.json.data, path);
  }
  // A client error at the root is the client API's error envelope.
  const missing = await get('/services/no-such-service');
  assert.equal(missing.status, 404, missing.text);
  assert.equal(missing.json.error.code, 'NOT_FOUND');
  const wrongMethod = await controller.http.put(`${controller.origin}/current-identity`, { headers, body: {} });
  assert.equal(wrongMethod.status, 405, wrongMethod.text);
  // Management operations do not appear at the root: the root is the client API.
  assert.equal((await get('/identities', kit.admin)).status, 404);
  const mgmt = await controller.http.get(kit.mgmt('/identities?limit=1'), { headers: kit.admin });
  assert.equal(mgmt.status, 200, mgmt.text);
  // The root's own paths keep their meaning.
  const health = await controller.http.get(`${controller.origin}/health-checks`);
  assert.equal(health.status, 200, health.text);
  assert.ok(health.json.data, 'the health-checks document');
  const fabric = await controller.http.get(`${controller.origin}/fabric/v1/cluster/list-members`, { headers: kit.admin });
  assert.equal(fabric.status, 200, fabric.text);
  const rootVersion = await controller.http.get(`${controller.origin}/`);
  assert.equal(rootVersion.status, 200);
  assert.equal(rootVersion.json.data.apiVersions.edge.v1.path, '/edge/client/v1');
  const legacy = await get('/edge/v1/current-identity');
  assert.equal(legacy.status, 200, legacy.text);
  assert.equal(legacy.json.data.id, sdk.identityId);
});

test('GET /.well-known/est/cacerts is base64 PKCS#7 in 64-character lines that `openssl base64 -d` reads, whatever the Accept', async () => {
  const expected = pemCertificates(controller.caPem).map(compact).sort();
  const urls = [`${controller.origin}/.well-known/est/cacerts`, kit.client('/.well-known/est/cacerts'), kit.mgmt('/.well-known/est/cacerts')];
  const accepts = [undefined, 'application/pkcs7-mime', 'application/json', '*/*', 'text/html'];
  let index = 0;
  for (const url of urls) {
    for (const accept of accepts) {
      const response = await controller.http.get(url, { headers: accept === undefined ? {} : { accept } });
      assert.equal(response.status, 200, `${url} (${accept}): ${response.text.slice(0, 200)}`);
      assert.match(String(response.headers['content-type']), /^application\/pkcs7-mime/);
      const lines = response.text.split('\n');
      assert.equal(lines.pop(), '', 'the body ends in a newline');
      for (const line of lines) assert.ok(line.length <= 64 && /^[A-Za-z0-9+/=]+$/.test(line), `a 64-character base64 line: ${line}`);
      index += 1;
      // OpenSSL's base64 reader (the one the C SDK uses) gives nothing for one unbroken line: this is its test.
      const b64File = kit.workbench.write(`cacerts-${index}.b64`, response.text);
      const derFile = `${b64File}.der`;
      await kit.workbench.openssl(['base64', '-d', '-in', b64File, '-out', derFile]);
      const printed = await kit.workbench.openssl(['pkcs7', '-inform', 'DER', '-in', derFile, '-print_certs']);
      assert.deepEqual(pemCertificates(printed).map(compact).sort(), expected, `${url} (${accept})`);
    }
  }
});

test('the service list paged as the C SDK pages it: every service has a string updatedAt, config by type name, permissions', async () => {
  const token = (await kit.expectLogin(sdk, sdk.identityId)).token as string;
  const listed: any[] = [];
  let totalCount = Infinity;
  // Bounded: never more pages than the services could fill.
  for (let offset = 0; offset < totalCount && offset <= serviceCount + 25; offset += 25) {
    const page = await sdkGet(`${controller.origin}/edge/client/v1/services?configTypes=all&limit=25&offset=${offset}`, token);
    totalCount = page.meta.pagination.totalCount;
    assert.equal(page.meta.pagination.limit, 25);
    assert.equal(page.meta.pagination.offset, offset);
    listed.push(...page.data);
  }
  assert.equal(totalCount, serviceCount);
  assert.equal(listed.length, serviceCount);
  assert.equal(new Set(listed.map((service) => service.id)).size, serviceCount, 'no service listed twice across pages');
  for (const service of listed) {
    assert.equal(typeof service.updatedAt, 'string', `${service.name}: updatedAt`);
    assert.ok(!Number.isNaN(Date.parse(service.updatedAt)));
    assert.equal(typeof service.encryptionRequired, 'boolean');
    assert.deepEqual(service.permissions, ['Dial']);
    assert.ok(Array.isArray(service.postureQueries));
    assert.equal(typeof service.config, 'object');
  }
  const configured = listed.find((service) => service.name === 'sdk-service-07');
  assert.deepEqual(configured.config, { 'intercept.v1': interceptData });
  // By type name or id, as a list: the same map; a type not asked for is left out.
  for (const query of ['configTypes=intercept.v1', 'configTypes=g7cIWbcGg', 'configTypes=host.v1,intercept.v1']) {
    const one = await sdkGet(`${controller.origin}/services?filter=${encodeURIComponent('name="sdk-service-07"')}&${query}`, token);
    assert.deepEqual(one.data[0].config, { 'intercept.v1': interceptData }, query);
  }
  const none = await sdkGet(`${controller.origin}/services?filter=${encodeURIComponent('name="sdk-service-07"')}&configTypes=host.v1`, token);
  assert.deepEqual(none.data[0].config, {});
  // A second listing, as the SDK makes on each service update, compares updatedAt: still a string.
  const again = await sdkGet(`${controller.origin}/services?configTypes=all&limit=25&offset=0`, token);
  for (const service of again.data) assert.equal(typeof service.updatedAt, 'string');
});

function compact(pem: string): string {
  return pem.replace(/\s+/g, '');
}
