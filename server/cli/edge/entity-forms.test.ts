import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EdgeUsageError, parseFlags } from './edge-args.ts';
import { createForms, updateForms, type FormContext } from './entity-forms.ts';

/** Names resolve to `<kind>:<name>`, files read as `<pem of file>`, and secrets come from the value or the file. */
const context: FormContext = {
  resolveId: async (kind, reference) => `${kind.name}:${reference}`,
  readText: (file) => `<pem of ${file}>`,
  readSecret: async (source) => {
    if (source.value !== undefined) return source.value;
    if (source.file !== undefined) return `<secret in ${source.file}>`;
    throw new EdgeUsageError('nothing to read');
  },
};

async function create(kind: string, args: string[]) {
  const form = createForms.find((candidate) => candidate.kind.name === kind)!;
  return form.plan(parseFlags(args, form.flags), context);
}

async function update(kind: string, args: string[]) {
  const form = updateForms.find((candidate) => candidate.kind.name === kind)!;
  return form.plan(parseFlags(args, form.flags), context);
}

async function refused(promise: Promise<unknown>, message: RegExp) {
  await assert.rejects(promise, (error: unknown) => error instanceof EdgeUsageError && message.test(error.message));
}

test('create identity: the body, and an enrollment only with --updb or -o', async () => {
  const plain = await create('identity', ['alice', '-a', 'ops,eu', '--auth-policy', 'people', '--tags-json', '{"team":"net"}']);
  assert.deepEqual(plain.body, { name: 'alice', type: 'Default', isAdmin: false, roleAttributes: ['ops', 'eu'], authPolicyId: 'auth-policy:people', tags: { team: 'net' } });
  assert.equal(plain.jwt, undefined);
  const updb = await create('identity', ['bob', '--admin', '--updb', 'bob.smith', '-o', 'bob.jwt']);
  assert.deepEqual(updb.body, { name: 'bob', type: 'Default', isAdmin: true, enrollment: { updb: 'bob.smith' } });
  assert.equal(updb.jwt!.file, 'bob.jwt');
  assert.equal(updb.jwt!.of({ enrollment: { updb: { jwt: 'J' } } }), 'J');
  const ott = await create('identity', ['sensor', '-o', 'sensor.jwt']);
  assert.deepEqual(ott.body.enrollment, { ott: true });
  assert.equal(ott.jwt!.of({ enrollment: { ott: { jwt: 'O' } } }), 'O');
  await refused(create('identity', []), /^create identity takes <name>$/);
  await refused(create('identity', ['a', 'b']), /^create identity takes <name>, not: a b$/);
  await refused(create('identity', ['a', '--tags-json', '[1]']), /must be a JSON object/);
  await refused(create('identity', ['a', '--tags-json', '{']), /is not JSON/);
});

test('update identity: only the fields given; empty text clears a nullable field', async () => {
  assert.deepEqual(await update('identity', ['alice', '--name', 'alice2', '--admin=false', '--external-id', '']), { target: 'alice', body: { name: 'alice2', isAdmin: false, externalId: null } });
  assert.deepEqual(await update('identity', ['alice', '-a', '']), { target: 'alice', body: { roleAttributes: [] } });
  assert.deepEqual(await update('identity', ['alice']), { target: 'alice', body: {} });
});

test('create authenticator: updb with the password as an argument or from a file; cert from a PEM file', async () => {
  const argument = await create('authenticator', ['updb', 'alice', 'alice.s', 'secret-1']);
  assert.deepEqual(argument.body, { method: 'updb', identityId: 'identity:alice', username: 'alice.s', password: 'secret-1' });
  const file = await create('authenticator', ['UPDB', 'alice', 'alice.s', '--password-file', 'pw']);
  assert.equal(file.body.password, '<secret in pw>');
  const cert = await create('authenticator', ['cert', 'sensor', 'sensor.pem']);
  assert.deepEqual(cert.body, { method: 'cert', identityId: 'identity:sensor', certPem: '<pem of sensor.pem>' });
  await refused(create('authenticator', ['updb', 'alice', 'alice.s', 'pw', '--password-file', 'f']), /either as an argument or with --password-file/);
  await refused(create('authenticator', ['updb', 'alice', 'alice.s']), /nothing to read/);
  await refused(create('authenticator', ['otp', 'alice']), /the method first: updb or cert, not 'otp'/);
  await refused(create('authenticator', ['updb', 'alice']), /^create authenticator updb takes <identity> <username> \[<password>\], not: alice$/);
});

test('create service: encryption ON by default, as ziti creates it; durations in Go syntax', async () => {
  assert.deepEqual((await create('service', ['web'])).body, { name: 'web', encryptionRequired: true });
  assert.deepEqual((await create('service', ['web', '-e', 'off', '--terminator-strategy', 'Weighted', '--max-idle-time', '1m30s'])).body, {
    name: 'web',
    encryptionRequired: false,
    terminatorStrategy: 'weighted',
    maxIdleTimeMillis: 90_000,
  });
  assert.equal((await create('service', ['web', '--encryption-required=false'])).body.encryptionRequired, false);
  assert.equal((await create('service', ['web', '--max-idle-time', '250'])).body.maxIdleTimeMillis, 250, 'a bare number is milliseconds');
  await refused(create('service', ['web', '-e', 'ON', '--encryption-required=false']), /disagree/);
  await refused(create('service', ['web', '-e', 'maybe']), /--encryption takes ON or OFF, not 'maybe'/);
  await refused(create('service', ['web', '--terminator-strategy', 'fastest']), /smartrouting or weighted or random or ha/);
  await refused(create('service', ['web', '--max-idle-time', 'soon']), /--max-idle-time takes a duration/);
});

test('create service-policy: @name roles become @id, #attribute roles stay; AllOf unless told', async () => {
  const policy = await create('service-policy', ['web-dial', 'dial', '-i', '@alice,#ops', '--service-roles', '@web', '-p', '@mfa']);
  assert.deepEqual(policy.body, {
    name: 'web-dial',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['@identity:alice', '#ops'],
    serviceRoles: ['@service:web'],
    postureCheckRoles: ['@posture-check:mfa'],
  });
  assert.deepEqual((await create('service-policy', ['all-bind', 'Bind', '--semantic', 'anyof', '-i', '#all'])).body, { name: 'all-bind', type: 'Bind', semantic: 'AnyOf', identityRoles: ['#all'], serviceRoles: [], postureCheckRoles: [] });
  await refused(create('service-policy', ['x', 'Connect']), /the policy type takes Dial or Bind, not 'Connect'/);
  await refused(create('service-policy', ['x']), /takes <name> <Dial\|Bind>/);
  assert.deepEqual(await update('service-policy', ['x', '--type', 'bind', '-p', '']), { target: 'x', body: { type: 'Bind', postureCheckRoles: [] } });
});

test('create auth-policy: the whole policy, allowing only what the flags allow; update: only what is given', async () => {
  const created = await create('auth-policy', ['people', '--primary-updb-allowed', '--primary-updb-min-password-length', '12', '--primary-ext-jwt-allowed-signers', 'corp-sso', '--secondary-req-totp']);
  assert.deepEqual(created.body, {
    name: 'people',
    primary: {
      cert: { allowed: false, allowExpiredCerts: false },
      updb: { allowed: true, minPasswordLength: 12, requireSpecialChar: false, requireNumberChar: false, requireMixedCase: false, maxAttempts: 0, lockoutDurationMinutes: 0 },
      extJwt: { allowed: false, allowedSigners: ['ext-jwt-signer:corp-sso'] },
    },
    secondary: { requireTotp: true, requireExtJwtSigner: null },
  });
  assert.deepEqual(await update('auth-policy', ['people', '--primary-updb-max-attempts', '5', '--secondary-req-ext-jwt-signer', '']), {
    target: 'people',
    body: { primary: { updb: { maxAttempts: 5 } }, secondary: { requireExtJwtSigner: null } },
  });
  assert.deepEqual(await update('auth-policy', ['people', '-n', 'staff']), { target: 'people', body: { name: 'staff' } });
});

test('create ext-jwt-signer: exactly one key source; enabled unless told; audience null when not given', async () => {
  assert.deepEqual((await create('ext-jwt-signer', ['sso', 'https://sso.example.com', '--jwks-endpoint', 'https://sso.example.com/jwks'])).body, {
    name: 'sso',
    issuer: 'https://sso.example.com',
    jwksEndpoint: 'https://sso.example.com/jwks',
    audience: null,
    enabled: true,
  });
  const withCert = await create('ext-jwt-signer', ['sso', 'iss', '--cert-file', 'idp.pem', '--audience', 'edgeward', '--use-external-id', '--scopes', 'openid,email', '--target-token', 'id', '--enabled=false']);
  assert.deepEqual(withCert.body, { name: 'sso', issuer: 'iss', certPem: '<pem of idp.pem>', audience: 'edgeward', useExternalId: true, scopes: ['openid', 'email'], targetToken: 'ID', enabled: false });
  await refused(create('ext-jwt-signer', ['sso', 'iss']), /exactly one of --cert-file and --jwks-endpoint/);
  await refused(create('ext-jwt-signer', ['sso', 'iss', '--cert-file', 'a', '--jwks-endpoint', 'b']), /exactly one/);
  assert.deepEqual(await update('ext-jwt-signer', ['sso', '--kid', '', '--issuer', 'iss2']), { target: 'sso', body: { issuer: 'iss2', kid: null } });
});

test('create ca: the PEM from its file and every flag the API requires', async () => {
  assert.deepEqual((await create('ca', ['acme', 'acme.pem', '--auth', '-a', 'devices'])).body, {
    name: 'acme',
    certPem: '<pem of acme.pem>',
    isAuthEnabled: true,
    isAutoCaEnrollmentEnabled: false,
    isOttCaEnrollmentEnabled: false,
    identityRoles: ['devices'],
  });
  assert.deepEqual(await update('ca', ['acme', '--autoca', '-f', '']), { target: 'acme', body: { isAutoCaEnrollmentEnabled: true, identityNameFormat: null } });
});

test('posture checks of every type; update takes the ziti form with the type word too', async () => {
  assert.deepEqual((await create('posture-check', ['MFA', 'recent', '-s', '300', '-w'])).body, { typeId: 'MFA', name: 'recent', timeoutSeconds: 300, promptOnWake: true });
  assert.deepEqual((await create('posture-check', ['os', 'win', '--os', 'windows:>=10.0.19041:<11.0.0', '--os', 'Linux', '-a', 'desk'])).body, {
    typeId: 'OS', name: 'win', roleAttributes: ['desk'], operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041', '<11.0.0'] }, { type: 'Linux', versions: [] }],
  });
  assert.deepEqual((await create('posture-check', ['mac', 'lab', '-m', 'aa:bb:cc:dd:ee:ff,001122334455'])).body, { typeId: 'MAC', name: 'lab', macAddresses: ['aa:bb:cc:dd:ee:ff', '001122334455'] });
  assert.deepEqual((await create('posture-check', ['domain', 'corp', '-d', 'corp.example'])).body, { typeId: 'DOMAIN', name: 'corp', domains: ['corp.example'] });
  assert.deepEqual((await create('posture-check', ['process', 'agent', 'linux', '/opt/agent', '--hashes', 'ab12,cd34', '-f', 'f00d'])).body, {
    typeId: 'PROCESS', name: 'agent', process: { osType: 'Linux', path: '/opt/agent', hashes: ['ab12', 'cd34'], signerFingerprint: 'f00d' },
  });
  assert.deepEqual((await create('posture-check', ['process-multi', 'agents', 'anyof', 'Linux,Windows', '/opt/a,C:\\a.exe'])).body, {
    typeId: 'PROCESS_MULTI', name: 'agents', semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '/opt/a' }, { osType: 'Windows', path: 'C:\\a.exe' }],
  });
  await refused(create('posture-check', ['fingerprint', 'x']), /a posture check is of type mfa, os, mac, domain, process, process-multi \(not 'fingerprint'\)/);
  await refused(create('posture-check', ['os', 'x', '--os', 'Plan9']), /--os takes Windows or .* not 'Plan9'/);
  await refused(create('posture-check', ['mac', 'x', '-s', '5']), /--seconds is for posture checks of type mfa, not mac/);
  await refused(create('posture-check', ['process', 'x', 'Linux']), /create posture-check process takes <type> <name> <os> <path>/);
  await refused(create('posture-check', ['process-multi', 'x', 'AllOf', 'Linux,Linux', '/a']), /pairs each OS with a path/);
  assert.deepEqual(await update('posture-check', ['domain', 'corp', '-d', 'a.example']), { target: 'corp', body: { typeId: 'DOMAIN', domains: ['a.example'] } });
  assert.deepEqual(await update('posture-check', ['mfa', 'recent', '--unlock']), { target: 'recent', body: { typeId: 'MFA', promptOnUnlock: true } });
  assert.deepEqual(await update('posture-check', ['recent', '-s', '0']), { target: 'recent', body: { typeId: 'MFA', timeoutSeconds: 0 } });
});

test('create edge-router: the fields given, and the enrollment JWT from the detail', async () => {
  const router = await create('edge-router', ['r1', '-a', 'edge', '--cost', '7', '--no-traversal', '-t', '-o', 'r1.jwt']);
  assert.deepEqual(router.body, { name: 'r1', roleAttributes: ['edge'], isTunnelerEnabled: true, cost: 7, noTraversal: true });
  assert.equal(router.jwt!.of({ enrollmentJwt: 'E' }), 'E');
  assert.deepEqual(await update('edge-router', ['r1', '--disabled=false']), { target: 'r1', body: { disabled: false } });
});

test('every form has a synopsis, a summary and documented flags', () => {
  for (const form of [...createForms, ...updateForms]) {
    assert.ok(form.synopsis.startsWith(form.kind.name), form.synopsis);
    assert.ok(form.summary.length > 0);
    for (const flag of form.flags) assert.ok(flag.help.length > 0, `${form.kind.name} --${flag.name}`);
    assert.equal(new Set(form.flags.map((flag) => flag.name)).size, form.flags.length, `${form.kind.name}: no flag twice`);
  }
  assert.deepEqual(
    createForms.map((form) => form.kind.name),
    ['identity', 'authenticator', 'service', 'config', 'config-type', 'service-policy', 'edge-router-policy', 'service-edge-router-policy', 'auth-policy', 'ext-jwt-signer', 'ca', 'posture-check', 'edge-router'],
  );
});

test('create config: ziti edge create config <name> <type> <json data>, the type looked up by name; or the data from a file', async () => {
  const inline = await create('config', ['web.host', 'host.v1', '{"protocol":"tcp","address":"localhost","port":8080}']);
  assert.deepEqual(inline.body, { name: 'web.host', configTypeId: 'config-type:host.v1', data: { protocol: 'tcp', address: 'localhost', port: 8080 } });
  const fromFile = await readingJson('{"protocols":["tcp"]}', (ctx) => {
    const form = createForms.find((candidate) => candidate.kind.name === 'config')!;
    return form.plan(parseFlags(['web.intercept', 'intercept.v1', '-f', 'intercept.json'], form.flags), ctx);
  });
  assert.deepEqual(fromFile.body.data, { protocols: ['tcp'] });
  await refused(create('config', ['web.host', 'host.v1']), /needs its data/);
  await refused(create('config', ['web.host', 'host.v1', '[1]']), /must be a JSON object/);
  await refused(create('config', ['web.host', 'host.v1', '{']), /is not JSON/);
  await refused(create('config', ['web.host', 'host.v1', '{}', '-f', 'x.json']), /either inline or from a file/);
});

test('update config and config-type; services take --configs by name', async () => {
  assert.deepEqual(await update('config', ['web.host', '--data', '{"port":9090}']), { target: 'web.host', body: { data: { port: 9090 } } });
  assert.deepEqual(await update('config', ['web.host', '--name', 'web.host2']), { target: 'web.host', body: { name: 'web.host2' } });
  assert.deepEqual((await create('config-type', ['proxy.v1', '--target', 'Router'])).body, { name: 'proxy.v1', target: 'router' });
  const withSchema = await readingJson('{"type":"object"}', (ctx) => {
    const form = createForms.find((candidate) => candidate.kind.name === 'config-type')!;
    return form.plan(parseFlags(['proxy.v1', '-s', 'schema.json'], form.flags), ctx);
  });
  assert.deepEqual(withSchema.body, { name: 'proxy.v1', schema: { type: 'object' } });
  assert.deepEqual((await create('service', ['web', '--configs', 'web.host,web.intercept'])).body.configs, ['config:web.host', 'config:web.intercept']);
  assert.deepEqual(await update('service', ['web', '-c', '']), { target: 'web', body: { configs: [] } });
});

/** Runs a form with a context whose files all hold `json`. */
async function readingJson<T>(json: string, run: (ctx: FormContext) => Promise<T>): Promise<T> {
  return run({ ...context, readText: () => json });
}

test("create edge-router-policy and service-edge-router-policy: ziti edge's flags, @names become ids, AllOf and empty lists by default", async () => {
  const erp = await create('edge-router-policy', ['all-routers', '--edge-router-roles', '#all', '--identity-roles', '#all', '--semantic', 'AnyOf']);
  assert.deepEqual(erp.body, { name: 'all-routers', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#all'] });
  const named = await create('edge-router-policy', ['ops-on-r1', '-e', '@r1', '-i', '#ops,@alice']);
  assert.deepEqual(named.body, { name: 'ops-on-r1', semantic: 'AllOf', identityRoles: ['#ops', '@identity:alice'], edgeRouterRoles: ['@edge-router:r1'] });
  const serp = await create('service-edge-router-policy', ['web-anywhere', '--service-roles', '@web', '--edge-router-roles', '#public']);
  assert.deepEqual(serp.body, { name: 'web-anywhere', semantic: 'AllOf', serviceRoles: ['@service:web'], edgeRouterRoles: ['#public'] });
  await refused(create('edge-router-policy', ['x', '--semantic', 'Most']), /--semantic/);
  await refused(create('service-edge-router-policy', []), /takes <name>/);
  assert.deepEqual(await update('edge-router-policy', ['ops-on-r1', '--identity-roles', '#all']), { target: 'ops-on-r1', body: { identityRoles: ['#all'] } });
  assert.deepEqual(await update('service-edge-router-policy', ['web-anywhere', '-n', 'web-public', '-e', '']), { target: 'web-anywhere', body: { name: 'web-public', edgeRouterRoles: [] } });
});
