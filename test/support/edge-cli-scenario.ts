// `edgeward edge` driven as an operator drives it, against any controller (a test fixture, or the demo): the real
// command line in its own process, a session file in a folder of the scenario's own, and checks through the APIs
// that what the commands did is what the controller holds. Names carry a random suffix, so the scenario can run
// against a long-lived controller more than once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { AuthenticatorApp } from './authenticator-app.ts';
import { HttpsClient } from './https-client.ts';
import { OpensslWorkbench } from './openssl-workbench.ts';

const cliEntry = fileURLToPath(new URL('../../server/cli/main.ts', import.meta.url));
const tsxLoader = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `edgeward edge <args>` as its own process; `input` is written to its standard input. */
export function runEdgeCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, cliEntry, 'edge', ...args], { env: { ...process.env, ...(options.env ?? {}) }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface EdgeCliScenarioOptions {
  /** The Management API's URL (`https://<host>:<port>/edge/management/v1`) or the controller's address. */
  readonly managementUrl: string;
  /** The CA bundle that signed the controller's certificate. */
  readonly caFile: string;
  /** An administrator's password credentials. */
  readonly admin: { readonly username: string; readonly password: string };
  /** A folder for the session and password files; a temporary one (removed afterwards) when unset. */
  readonly workDir?: string;
  /** Told each command line and its exit code, for a log of the run. */
  readonly log?: (line: string) => void;
}

interface Scenario {
  readonly origin: string;
  readonly managementUrl: string;
  readonly clientUrl: string;
  readonly http: HttpsClient;
  readonly dir: string;
  readonly sessionFile: string;
  readonly suffix: string;
  edge(args: readonly string[], input?: string): Promise<CliResult>;
  /** Runs a command that must succeed, and returns its standard output. */
  ok(args: readonly string[], input?: string): Promise<string>;
  json(args: readonly string[]): Promise<any>;
}

async function openScenario(options: EdgeCliScenarioOptions): Promise<{ scenario: Scenario; close: () => void }> {
  const origin = new URL(options.managementUrl).origin;
  const dir = options.workDir ?? mkdtempSync(join(tmpdir(), 'edgeward-edge-cli-'));
  const sessionFile = join(dir, `edge-cli-${randomBytes(3).toString('hex')}.json`);
  const http = new HttpsClient(readFileSync(options.caFile, 'utf8'));
  const env = { EDGEWARD_EDGE_CLI_CONFIG: sessionFile };
  const edge = async (args: readonly string[], input?: string) => {
    const result = await runEdgeCli(args, { env, ...(input !== undefined ? { input } : {}) });
    options.log?.(`edgeward edge ${args.join(' ')} -> ${String(result.code)}`);
    return result;
  };
  const ok = async (args: readonly string[], input?: string) => {
    const result = await edge(args, input);
    assert.equal(result.code, 0, `edgeward edge ${args.join(' ')} failed (${String(result.code)}):\n${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const scenario: Scenario = {
    origin,
    managementUrl: `${origin}/edge/management/v1`,
    clientUrl: `${origin}/edge/client/v1`,
    http,
    dir,
    sessionFile,
    suffix: randomBytes(3).toString('hex'),
    edge,
    ok,
    json: async (args) => JSON.parse(await ok([...args, '--json'])),
  };
  const close = () => {
    http.close();
    if (!options.workDir) rmSync(dir, { recursive: true, force: true });
  };
  return { scenario, close };
}

/** The id in `New <kind> <name> created with id: <id>`. */
function createdId(stdout: string, title: string, name: string): string {
  const match = new RegExp(`^New ${title} ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} created with id: (\\S+)$`, 'm').exec(stdout);
  assert.ok(match, `no "New ${title} ${name} created with id" in:\n${stdout}`);
  return match[1]!;
}

/**
 * The whole operator scenario: usage errors and help, login (a wrong password first), an identity with a password
 * authenticator (that then logs in through the Client API), a service and a Dial policy (that the identity then
 * sees), lists with filters as JSON, YAML and a table, updates, an MFA reset of an enrolled identity, deletes by
 * name and by id, the API's errors, an ended session and logout.
 */
export async function runEdgeCliScenario(options: EdgeCliScenarioOptions): Promise<void> {
  const { scenario: s, close } = await openScenario(options);
  try {
    const identityName = `edge-cli-user-${s.suffix}`;
    const username = `edge-cli-${s.suffix}`;
    const userPassword = `user-password-${s.suffix}`;
    const serviceName = `edge-cli-service-${s.suffix}`;
    const renamedService = `edge-cli-renamed-${s.suffix}`;
    const policyName = `edge-cli-dial-${s.suffix}`;
    const byName = (name: string) => `name = "${name}"`;

    // The command line itself: help answers 0 on stdout, a wrong command line 2 with two lines on stderr.
    const [help, ...wrongs] = await Promise.all(
      [['create', 'service-policy', '--help'], ['list', 'widgets'], ['frobnicate'], ['create', 'identity'], ['list', 'identities', '--frob']].map((args) => s.edge(args)),
    );
    assert.equal(help!.code, 0);
    assert.match(help!.stdout, /create service-policy <name> Dial\|Bind/);
    assert.match(help!.stdout, /--identity-roles/);
    for (const wrong of wrongs) {
      assert.equal(wrong.code, 2, wrong.stderr);
      assert.match(wrong.stderr, /^edgeward edge[^:]*: .+\nRun '\.\/edgeward edge[^']* --help' for usage\.\n$/);
      assert.equal(wrong.stdout, '');
    }
    assert.match(wrongs[0]!.stderr, /unknown entity 'widgets'/);
    assert.match(wrongs[2]!.stderr, /create identity takes <name>/);
    assert.match(wrongs[3]!.stderr, /unknown flag --frob/);

    // Before any login: a clear failure that says to log in, through the flag as well as the variable.
    const noSession = await s.edge(['list', 'identities', '--cli-config', join(s.dir, 'nobody.json')]);
    assert.equal(noSession.code, 1);
    assert.match(noSession.stderr, /not logged in/);
    assert.match(noSession.stderr, /log in first: edgeward edge login/);

    // Login: without the CA the certificate is not trusted; a wrong password is the API's INVALID_AUTH.
    const untrusted = await s.edge(['login', s.origin, '-u', options.admin.username, '-p', options.admin.password]);
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /certificate of https:\/\/.+ is not trusted .*pass --ca <pem file>/);
    const wrongPassword = await s.edge(['login', s.origin, '-u', options.admin.username, '-p', 'not-the-password', '--ca', options.caFile]);
    assert.equal(wrongPassword.code, 1);
    assert.match(wrongPassword.stderr, /^error: INVALID_AUTH: The authentication request failed$/m);
    assert.equal(existsSync(s.sessionFile), false, 'a refused login stores nothing');
    const login = await s.ok(['login', s.managementUrl, '-u', options.admin.username, '--password-file', '-', '--ca', options.caFile], `${options.admin.password}\n`);
    assert.match(login, /^Logged in to https:\/\/.+\/edge\/management\/v1 as .+ \(username /m);
    assert.equal(statSync(s.sessionFile).mode & 0o777, 0o600, 'the session file is readable by its owner only');
    const book = JSON.parse(readFileSync(s.sessionFile, 'utf8'));
    const stored = book.sessions[book.current];
    assert.equal(stored.controllerUrl, s.managementUrl);
    assert.match(stored.caPem, /BEGIN CERTIFICATE/);

    // An identity with a password authenticator, which then logs in through the Client API.
    const identityId = createdId(await s.ok(['create', 'identity', identityName, '--role-attributes', 'edge-cli,ops']), 'identity', identityName);
    const passwordFile = join(s.dir, `password-${s.suffix}`);
    writeFileSync(passwordFile, `${userPassword}\n`, { mode: 0o600 });
    createdId(await s.ok(['create', 'authenticator', 'updb', identityName, username, '--password-file', passwordFile]), 'authenticator', username);
    const userLogin = await s.http.post(`${s.clientUrl}/authenticate?method=password`, { body: { username, password: userPassword } });
    assert.equal(userLogin.status, 200, `the new authenticator logs in: ${userLogin.text}`);
    assert.equal(userLogin.json.data.identityId, identityId);
    const userHeaders = { 'zt-session': userLogin.json.data.token as string };

    // A service and a Dial policy naming both by name; the identity now sees the service, to dial.
    const serviceId = createdId(await s.ok(['create', 'service', serviceName, '--role-attributes', 'edge-cli']), 'service', serviceName);
    const policyId = createdId(
      await s.ok(['create', 'service-policy', policyName, 'Dial', '--identity-roles', `@${identityName}`, '--service-roles', `@${serviceName}`]),
      'service policy',
      policyName,
    );
    const visible = await s.http.get(`${s.clientUrl}/services?filter=${encodeURIComponent(`id = "${serviceId}"`)}`, { headers: userHeaders });
    assert.equal(visible.status, 200, visible.text);
    assert.deepEqual(visible.json.data.map((service: { name: string; permissions: string[] }) => [service.name, service.permissions]), [[serviceName, ['Dial']]]);

    // Lists with filters: JSON, YAML and the table.
    const identities = await s.json(['list', 'identities', byName(identityName)]);
    assert.equal(identities.length, 1);
    assert.equal(identities[0].id, identityId);
    assert.deepEqual(identities[0].roleAttributes, ['edge-cli', 'ops']);
    assert.equal(identities[0].authenticators.updb.username, username);
    const policies = parseYaml(await s.ok(['list', 'service-policies', byName(policyName), '--yaml']));
    assert.equal(policies.length, 1);
    assert.equal(policies[0].id, policyId);
    assert.equal(policies[0].type, 'Dial');
    assert.deepEqual(policies[0].identityRoles, [`@${identityId}`]);
    assert.deepEqual(policies[0].serviceRoles, [`@${serviceId}`]);
    const table = await s.ok(['list', 'services', `anyOf(roleAttributes) = "edge-cli" and ${byName(serviceName)}`]);
    assert.match(table, /^╭─+┬/);
    assert.match(table, new RegExp(`│ ${serviceId} +│ ${serviceName} +│ true +│ smartrouting +│ edge-cli +│`));
    assert.match(table, /^results: 1-1 of 1$/m);
    const policyTable = await s.ok(['list', 'service-policies', byName(policyName)]);
    assert.ok(policyTable.includes(`@${identityName}`) && policyTable.includes(`@${serviceName}`), `roles shown by name:\n${policyTable}`);
    const badFilter = await s.edge(['list', 'identities', 'nam = "x"']);
    assert.equal(badFilter.code, 1);
    assert.match(badFilter.stderr, /^error: INVALID_FILTER: The filter query supplied is invalid\n {2}cause: filter: unknown field 'nam' at column 1/);

    // Updates: by name and by id.
    assert.match(await s.ok(['update', 'identity', identityName, '--role-attributes', 'edge-cli,updated']), new RegExp(`^Updated identity ${identityName} \\(id: ${identityId.replace(/[.]/g, '\\.')}\\)$`, 'm'));
    assert.deepEqual((await s.json(['list', 'identities', byName(identityName)]))[0].roleAttributes, ['edge-cli', 'updated']);
    await s.ok(['update', 'service', serviceId, '--name', renamedService]);
    assert.deepEqual((await s.json(['list', 'services', `id = "${serviceId}"`])).map((service: { name: string }) => service.name), [renamedService]);

    // The API's own errors, with their cause: the renamed service's name is taken.
    const duplicate = await s.edge(['create', 'service', renamedService]);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /^error: COULD_NOT_VALIDATE: The supplied request contains an invalid document/);
    assert.match(duplicate.stderr, /^ {2}cause: name: duplicate value/m);
    const unknownRole = await s.edge(['create', 'service-policy', `edge-cli-nobody-${s.suffix}`, 'Bind', '--identity-roles', '@nobody-at-all']);
    assert.equal(unknownRole.code, 1);
    assert.match(unknownRole.stderr, /no identity has the name or id 'nobody-at-all'/);

    // MFA: the identity enrolls an authenticator app, then an administrator resets it.
    const started = await s.http.post(`${s.clientUrl}/current-identity/mfa`, { headers: userHeaders, body: {} });
    assert.equal(started.status, 201, started.text);
    const enrollment = await s.http.get(`${s.clientUrl}/current-identity/mfa`, { headers: userHeaders });
    const app = AuthenticatorApp.fromUrl(enrollment.json.data.provisioningUrl);
    const verified = await s.http.post(`${s.clientUrl}/current-identity/mfa/verify`, { headers: userHeaders, body: { code: await app.nextCode() } });
    assert.equal(verified.status, 200, verified.text);
    assert.equal((await s.json(['list', 'identities', byName(identityName)]))[0].isMfaEnabled, true);
    assert.match(await s.ok(['mfa', 'reset', identityName]), new RegExp(`^Removed the MFA enrollment of identity ${identityName} `, 'm'));
    assert.equal((await s.http.get(`${s.clientUrl}/current-identity/mfa`, { headers: userHeaders })).status, 404, 'no enrollment left');
    assert.equal((await s.json(['list', 'identities', byName(identityName)]))[0].isMfaEnabled, false);
    const resetAgain = await s.edge(['mfa', 'reset', identityName]);
    assert.equal(resetAgain.code, 1);
    assert.match(resetAgain.stderr, /^error: NOT_FOUND: /);

    // Deletes: the policy by name, the service by id, the identity by name (JSON: the API's empty data).
    assert.match(await s.ok(['delete', 'service-policy', policyName]), new RegExp(`^Deleted service policy ${policyName} \\(id: `, 'm'));
    assert.match(await s.ok(['delete', 'service', serviceId]), new RegExp(`^Deleted service ${serviceId.replace(/[.]/g, '\\.')}$`, 'm'));
    assert.deepEqual(await s.json(['delete', 'identity', identityName]), {});
    assert.deepEqual(await s.json(['list', 'identities', byName(identityName)]), []);
    assert.deepEqual(await s.json(['list', 'services', `id = "${serviceId}"`]), []);
    const gone = await s.edge(['delete', 'identity', identityName]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, new RegExp(`^error: no identity has the name or id '${identityName}'$`, 'm'));
    assert.equal((await s.http.post(`${s.clientUrl}/authenticate?method=password`, { body: { username, password: userPassword } })).status, 401, 'its authenticator went with it');

    // A session that ended on the controller: the next command says to log in again.
    // (An OIDC login keeps an access token, which the API takes as Bearer; a legacy one a zt-session token.)
    const sessionHeaders: Record<string, string> = stored.oidc ? { authorization: `Bearer ${stored.token}` } : { 'zt-session': stored.token };
    const ended = await s.http.delete(`${s.managementUrl}/current-api-session`, { headers: sessionHeaders });
    assert.equal(ended.status, 200);
    const stale = await s.edge(['list', 'identities']);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /^error: UNAUTHORIZED: /);
    assert.match(stale.stderr, /is no longer valid .*: log in again: edgeward edge login https:\/\//);

    // Logout forgets the session; a second logout has nothing to do.
    assert.match(await s.ok(['logout']), /^Logged out of /);
    assert.equal(existsSync(s.sessionFile), false);
    assert.match(await s.ok(['logout']), /^Not logged in/);
  } finally {
    close();
  }
}

/**
 * Every other entity through its create, list, update and delete forms, with the fields each form sets checked in
 * the API's own answer: auth policies, external JWT signers, CAs, posture checks of every type, edge routers (with
 * the enrollment JWT written), identities with an ott enrollment, and certificate authenticators.
 */
export async function runEdgeCliEntityRoundTrips(options: EdgeCliScenarioOptions): Promise<void> {
  const { scenario: s, close } = await openScenario(options);
  try {
    const bench = new OpensslWorkbench(join(s.dir, `certs-${s.suffix}`));
    const name = (what: string) => `edge-cli-${what}-${s.suffix}`;
    await s.ok(['login', s.origin, '-u', options.admin.username, '--password-file', '-', '--ca', options.caFile], options.admin.password);
    // What the commands did is read back through the API itself (each command is a process start of its own).
    const adminLogin = await s.http.post(`${s.managementUrl}/authenticate?method=password`, { body: options.admin });
    assert.equal(adminLogin.status, 200, adminLogin.text);
    const admin = { 'zt-session': adminLogin.json.data.token as string };
    const api = async (path: string, filter: string) => {
      const answer = await s.http.get(`${s.managementUrl}${path}?filter=${encodeURIComponent(filter)}`, { headers: admin });
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data as any[];
    };
    const only = async (plural: string, entityName: string) => {
      const path = plural === 'ext-jwt-signers' ? '/external-jwt-signers' : `/${plural}`;
      const rows = await api(path, `name = "${entityName}"`);
      assert.equal(rows.length, 1, `${plural} named ${entityName}: ${JSON.stringify(rows)}`);
      return rows[0];
    };

    // External JWT signer, from a certificate; then switched to a JWKS endpoint.
    const signerCa = await bench.rootCa(name('idp'));
    await s.ok(['create', 'ext-jwt-signer', name('signer'), 'https://idp.example.com', '--cert-file', signerCa.certFile, '--audience', 'edgeward', '--claims-property', 'email', '--use-external-id', '--scopes', 'openid,email', '--target-token', 'ID']);
    const signer = await only('ext-jwt-signers', name('signer'));
    assert.deepEqual([signer.issuer, signer.audience, signer.claimsProperty, signer.useExternalId, signer.scopes, signer.targetToken, signer.enabled], ['https://idp.example.com', 'edgeward', 'email', true, ['openid', 'email'], 'ID', true]);
    assert.match(signer.certPem, /BEGIN CERTIFICATE/);
    await s.ok(['update', 'ext-jwt-signer', name('signer'), '--jwks-endpoint', 'https://idp.example.com/jwks.json', '--enabled=false']);
    const switched = await only('ext-jwt-signers', name('signer'));
    assert.deepEqual([switched.jwksEndpoint, switched.certPem, switched.enabled], ['https://idp.example.com/jwks.json', null, false]);

    // Auth policy: only what the flags allow; the signer named by name; then a partial update.
    await s.ok(['create', 'auth-policy', name('policy'), '--primary-updb-allowed', '--primary-updb-min-password-length', '12', '--primary-updb-req-numbers', '--primary-updb-max-attempts', '5', '--primary-updb-lockout-min', '15', '--primary-ext-jwt-allowed', '--primary-ext-jwt-allowed-signers', name('signer'), '--secondary-req-totp']);
    const policy = await only('auth-policies', name('policy'));
    assert.deepEqual(policy.primary, {
      cert: { allowed: false, allowExpiredCerts: false },
      updb: { allowed: true, minPasswordLength: 12, requireSpecialChar: false, requireNumberChar: true, requireMixedCase: false, maxAttempts: 5, lockoutDurationMinutes: 15 },
      extJwt: { allowed: true, allowedSigners: [signer.id] },
    });
    assert.deepEqual(policy.secondary, { requireTotp: true, requireExtJwtSigner: null });
    await s.ok(['update', 'auth-policy', name('policy'), '--primary-cert-allowed', '--secondary-req-totp=false', '--secondary-req-ext-jwt-signer', signer.id]);
    const changed = await only('auth-policies', name('policy'));
    assert.deepEqual([changed.primary.cert.allowed, changed.primary.updb.minPasswordLength, changed.secondary], [true, 12, { requireTotp: false, requireExtJwtSigner: signer.id }]);
    const referenced = await s.edge(['delete', 'ext-jwt-signer', name('signer')]);
    assert.equal(referenced.code, 1);
    assert.match(referenced.stderr, /^error: CAN_NOT_DELETE_REFERENCED_ENTITY: Referenced entities can not be deleted$/m);

    // An identity under that policy, with an ott enrollment whose JWT is written; a certificate authenticator.
    const jwtFile = join(s.dir, `${name('device')}.jwt`);
    await s.ok(['create', 'identity', name('device'), '--auth-policy', name('policy'), '--external-id', `ext-${s.suffix}`, '-o', jwtFile, '--tags-json', '{"team":"net"}']);
    const device = await only('identities', name('device'));
    assert.deepEqual([device.authPolicyId, device.externalId, device.tags, device.isAdmin], [policy.id, `ext-${s.suffix}`, { team: 'net' }, false]);
    assert.equal(readFileSync(jwtFile, 'utf8').trim(), device.enrollment.ott.jwt);
    assert.equal(statSync(jwtFile).mode & 0o777, 0o600);
    const enrollments = await s.ok(['list', 'enrollments', `identityId = "${device.id}"`]);
    assert.match(enrollments, new RegExp(`│ ${device.enrollment.ott.id.replace(/[.]/g, '\\.')} +│ ott +│ ${name('device')} +│ +│ 20`), enrollments);
    const client = await bench.selfSignedClient(name('device-cert'));
    await s.ok(['create', 'authenticator', 'cert', name('device'), client.certFile]);
    const certAuthenticators = await s.json(['list', 'authenticators', `identityId = "${device.id}"`, '--limit', '5']);
    assert.deepEqual(certAuthenticators.map((row: { method: string; fingerprint: string }) => [row.method, row.fingerprint]), [['cert', await bench.fingerprint(client.certFile)]]);
    await s.ok(['update', 'identity', `id:${device.id}`, '--admin', '--auth-policy', 'default', '--external-id', '']);
    const promoted = await only('identities', name('device'));
    assert.deepEqual([promoted.isAdmin, promoted.authPolicyId, promoted.externalId], [true, 'default', null]);
    await s.ok(['delete', 'authenticator', certAuthenticators[0].id]);

    // An administrator enrolled in MFA logs in with --mfa-code; without one, no session is kept.
    const mfaAdmin = name('mfa-admin');
    const mfaUser = `mfa-${s.suffix}`;
    const mfaPassword = `mfa-password-${s.suffix}`;
    const mfaAdminId = /created with id: (\S+)/.exec(await s.ok(['create', 'identity', mfaAdmin, '--admin']))![1]!;
    await s.ok(['create', 'authenticator', 'updb', mfaAdmin, mfaUser, mfaPassword]);
    const mfaSession = await s.http.post(`${s.clientUrl}/authenticate?method=password`, { body: { username: mfaUser, password: mfaPassword } });
    assert.equal(mfaSession.status, 200, mfaSession.text);
    const mfaHeaders = { 'zt-session': mfaSession.json.data.token as string };
    assert.equal((await s.http.post(`${s.clientUrl}/current-identity/mfa`, { headers: mfaHeaders, body: {} })).status, 201);
    const app = AuthenticatorApp.fromUrl((await s.http.get(`${s.clientUrl}/current-identity/mfa`, { headers: mfaHeaders })).json.data.provisioningUrl);
    assert.equal((await s.http.post(`${s.clientUrl}/current-identity/mfa/verify`, { headers: mfaHeaders, body: { code: await app.nextCode() } })).status, 200);
    const mfaConfig = join(s.dir, `mfa-${s.suffix}.json`);
    const mfaLogin = ['login', s.origin, '-u', mfaUser, '-p', mfaPassword, '--ca', options.caFile, '--cli-config', mfaConfig];
    const owes = await s.edge(mfaLogin);
    assert.equal(owes.code, 2, owes.stderr);
    assert.match(owes.stderr, new RegExp(`^edgeward edge login: ${mfaUser} owes an MFA code: give it with --mfa-code <code>`));
    assert.equal(existsSync(mfaConfig), false);
    assert.match(await s.ok([...mfaLogin, '--mfa-code', await app.nextCode()]), new RegExp(`^Logged in to .+ as ${mfaAdmin} \\(username ${mfaUser}\\)$`, 'm'));
    const mfaSessions = await s.json(['list', 'api-sessions', `identityId = "${mfaAdminId}"`, '--cli-config', mfaConfig]);
    assert.ok(mfaSessions.some((session: { isMfaComplete: boolean }) => session.isMfaComplete), JSON.stringify(mfaSessions));
    await s.ok(['logout', '--cli-config', mfaConfig]);
    await s.ok(['delete', 'identity', mfaAdmin]);

    // A third-party CA.
    const ca = await bench.rootCa(name('ca'));
    await s.ok(['create', 'ca', name('ca'), ca.certFile, '--auth', '--autoca', '--identity-attributes', 'devices,edge-cli', '--identity-name-format', '[caName]-[commonName]']);
    const createdCa = await only('cas', name('ca'));
    assert.deepEqual([createdCa.isAuthEnabled, createdCa.isAutoCaEnrollmentEnabled, createdCa.isOttCaEnrollmentEnabled, createdCa.identityRoles, createdCa.isVerified], [true, true, false, ['devices', 'edge-cli'], false]);
    await s.ok(['update', 'ca', name('ca'), '--autoca=false', '--identity-attributes', 'devices']);
    assert.deepEqual([(await only('cas', name('ca'))).isAutoCaEnrollmentEnabled, (await only('cas', name('ca'))).identityRoles], [false, ['devices']]);
    const caTable = await s.ok(['list', 'cas', `name = "${name('ca')}"`]);
    assert.ok(caTable.includes(createdCa.verificationToken), 'an unverified CA shows its verification token');

    // An MFA posture check, in a Bind policy that names it by name.
    await s.ok(['create', 'posture-check', 'mfa', name('mfa'), '--role-attributes', 'mfa', '--seconds', '300', '--wake']);
    const check = await only('posture-checks', name('mfa'));
    assert.deepEqual([check.typeId, check.timeoutSeconds, check.promptOnWake, check.roleAttributes, check.version], ['MFA', 300, true, ['mfa'], 1]);
    await s.ok(['update', 'posture-check', 'mfa', name('mfa'), '--seconds', '0', '--unlock']);
    const checked = await only('posture-checks', name('mfa'));
    assert.deepEqual([checked.timeoutSeconds, checked.promptOnUnlock, checked.version], [-1, true, 2]);
    // Device posture checks of every other type, in ziti's grammar.
    await s.ok(['create', 'posture-check', 'os', name('os'), '--os', 'Windows:>=10.0.19041:<11.0.0', '--os', 'linux', '-a', 'desk']);
    assert.deepEqual((await only('posture-checks', name('os'))).operatingSystems, [{ type: 'Windows', versions: ['>=10.0.19041', '<11.0.0'] }, { type: 'Linux', versions: [] }]);
    await s.ok(['create', 'posture-check', 'mac', name('mac'), '-m', 'aa:bb:cc:dd:ee:ff']);
    await s.ok(['update', 'posture-check', 'mac', name('mac'), '-m', '00-11-22-33-44-55,aabbccddeeff']);
    assert.deepEqual((await only('posture-checks', name('mac'))).macAddresses, ['00-11-22-33-44-55', 'aabbccddeeff']);
    await s.ok(['create', 'posture-check', 'domain', name('domain'), '-d', 'corp.example']);
    assert.deepEqual((await only('posture-checks', name('domain'))).domains, ['corp.example']);
    await s.ok(['create', 'posture-check', 'process', name('process'), 'Linux', '/opt/agent', '--hashes', 'ab12', '-f', 'f00d']);
    assert.deepEqual((await only('posture-checks', name('process'))).process, { osType: 'Linux', path: '/opt/agent', hashes: ['ab12'], signerFingerprint: 'f00d' });
    await s.ok(['create', 'posture-check', 'process-multi', name('multi'), 'AnyOf', 'Linux,Windows', '/opt/a,C:\\a.exe']);
    const multi = await only('posture-checks', name('multi'));
    assert.deepEqual([multi.semantic, multi.processes.map((process: { path: string }) => process.path)], ['AnyOf', ['/opt/a', 'C:\\a.exe']]);
    for (const what of ['os', 'mac', 'domain', 'process', 'multi']) await s.ok(['delete', 'posture-check', name(what)]);
    await s.ok(['create', 'service', name('svc'), '--encryption', 'OFF', '--terminator-strategy', 'weighted', '--max-idle-time', '1m30s']);
    const svc = await only('services', name('svc'));
    assert.deepEqual([svc.encryptionRequired, svc.terminatorStrategy, svc.maxIdleTimeMillis], [false, 'weighted', 90_000]);
    await s.ok(['create', 'service-policy', name('bind'), 'bind', '--semantic', 'AnyOf', '--identity-roles', '#edge-cli', '--service-roles', `@${name('svc')}`, '--posture-check-roles', `@${name('mfa')}`]);
    const bind = await only('service-policies', name('bind'));
    assert.deepEqual([bind.type, bind.semantic, bind.identityRoles, bind.serviceRoles, bind.postureCheckRoles], ['Bind', 'AnyOf', ['#edge-cli'], [`@${svc.id}`], [`@${check.id}`]]);
    await s.ok(['update', 'service-policy', name('bind'), '--type', 'Dial', '--posture-check-roles', '']);
    const dial = await only('service-policies', name('bind'));
    assert.deepEqual([dial.type, dial.postureCheckRoles], ['Dial', []]);

    // An edge router, with its enrollment JWT.
    const routerJwt = join(s.dir, `${name('router')}.jwt`);
    const routerOut = await s.ok(['create', 'edge-router', name('router'), '--role-attributes', 'edge', '--cost', '7', '--no-traversal', '-o', routerJwt]);
    assert.match(routerOut, /^Enrollment JWT written to /m);
    const router = await only('edge-routers', name('router'));
    assert.deepEqual([router.cost, router.noTraversal, router.roleAttributes, router.isVerified], [7, true, ['edge'], false]);
    assert.equal(readFileSync(routerJwt, 'utf8').trim(), router.enrollmentJwt);
    await s.ok(['update', 'edge-router', name('router'), '--cost', '9', '--disabled']);
    assert.deepEqual([(await only('edge-routers', name('router'))).cost, (await only('edge-routers', name('router'))).disabled], [9, true]);

    // Edge router policies and service edge router policies, in ziti edge's grammar and by their aliases.
    await s.ok(['create', 'edge-router-policy', name('erp'), '--edge-router-roles', `@${name('router')}`, '--identity-roles', '#all', '--semantic', 'AnyOf']);
    const erp = await only('edge-router-policies', name('erp'));
    assert.deepEqual([erp.semantic, erp.identityRoles, erp.edgeRouterRoles, erp.isSystem], ['AnyOf', ['#all'], [`@${router.id}`], false]);
    await s.ok(['update', 'erp', name('erp'), '--identity-roles', '#edge-cli']);
    assert.deepEqual((await only('edge-router-policies', name('erp'))).identityRoles, ['#edge-cli']);
    await s.ok(['create', 'serp', name('serp'), '--service-roles', `@${name('svc')}`, '--edge-router-roles', '#edge']);
    const serp = await only('service-edge-router-policies', name('serp'));
    assert.deepEqual([serp.semantic, serp.serviceRoles, serp.edgeRouterRoles], ['AllOf', [`@${svc.id}`], ['#edge']]);
    const serpTable = await s.ok(['list', 'service-edge-router-policies', `name = "${name('serp')}"`]);
    assert.ok(serpTable.includes(`@${name('svc')}`), serpTable);
    const erpTable = await s.ok(['list', 'erps', `name = "${name('erp')}"`]);
    assert.ok(erpTable.includes(`@${name('router')}`), erpTable);
    await s.ok(['delete', 'erp', name('erp')]);
    await s.ok(['delete', 'service-edge-router-policy', name('serp')]);

    // Deletes (the plural word works as well); then nothing of the run is left.
    await s.ok(['delete', 'service-policy', name('bind')]);
    await s.ok(['delete', 'identity', name('device')]);
    await s.ok(['delete', 'auth-policy', name('policy')]);
    await s.ok(['delete', 'ext-jwt-signer', name('signer')]);
    await s.ok(['delete', 'services', name('svc')]);
    await s.ok(['delete', 'posture-check', name('mfa')]);
    await s.ok(['delete', 'edge-router', name('router')]);
    await s.ok(['delete', 'ca', name('ca')]);
    for (const path of ['/identities', '/services', '/service-policies', '/auth-policies', '/external-jwt-signers', '/cas', '/posture-checks', '/edge-routers', '/edge-router-policies', '/service-edge-router-policies']) {
      assert.deepEqual(await api(path, `name contains "${s.suffix}"`), [], `${path} left behind`);
    }
    await s.ok(['logout']);
    await s.http.delete(`${s.managementUrl}/current-api-session`, { headers: admin });
  } finally {
    close();
  }
}
