// Test support for external JWT signers against a real controller: a JWKS server whose TLS certificate comes from
// the controller's own PKI (so the controller trusts it), admin calls for signers, identities and auth policies,
// strict parsing of WWW-Authenticate challenges, and reading the controller's JSON-lines log.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signCertificateRequest } from '../../common/pki/client-certificate.ts';
import { opensslOk } from '../../common/pki/openssl-cli.ts';
import { initPki, loadIssuer, pkiPaths } from '../../common/pki/pki-directory.ts';
import { startJwksServer, type JwksTestServer, type TestTlsMaterial } from '../../server/auth/ext-jwt/jwks-test-server.ts';
import type { ControllerFixture } from './controller-fixture.ts';
import type { HttpResponse } from './https-client.ts';

/** Creates the PKI a controller fixture will use (`pkiDir`) and a 127.0.0.1 server certificate issued by it. */
export async function pkiWithServerCertificate(pkiDir: string): Promise<TestTlsMaterial> {
  await initPki(pkiDir, { trustDomain: 'edgeward.test' });
  const issuer = await loadIssuer(pkiDir); // the intermediate CA, read from pkiPaths(pkiDir)
  const work = mkdtempSync(join(tmpdir(), 'jwks-tls-'));
  try {
    const keyFile = join(work, 'server.key');
    const csrFile = join(work, 'server.csr');
    opensslOk(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', csrFile, '-subj', '/CN=jwks.test']);
    const signed = await signCertificateRequest(issuer, readFileSync(csrFile, 'utf8'), { usage: 'server', ipAddresses: ['127.0.0.1'], validityDays: 1 });
    return { caPem: readFileSync(pkiPaths(pkiDir).bundle, 'utf8'), serverKeyPem: readFileSync(keyFile, 'utf8'), serverCertPem: signed.chainPem };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A JWKS endpoint whose document can be swapped (key rotation) and which remembers when it was last fetched. */
export interface RotatingJwksServer {
  readonly server: JwksTestServer;
  readonly url: string;
  readonly fetches: number;
  /** Date.now() of the latest request, or 0. */
  readonly lastFetchAt: number;
  publish(keys: readonly object[]): void;
  close(): Promise<void>;
}

export async function startRotatingJwksServer(tls: TestTlsMaterial, keys: readonly object[]): Promise<RotatingJwksServer> {
  const server = await startJwksServer(tls);
  let body = JSON.stringify({ keys });
  let lastFetchAt = 0;
  server.respondWith((_request: IncomingMessage, response: ServerResponse) => {
    lastFetchAt = Date.now();
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  return {
    server,
    url: server.url(),
    get fetches() {
      return server.requests;
    },
    get lastFetchAt() {
      return lastFetchAt;
    },
    publish(next) {
      body = JSON.stringify({ keys: next });
    },
    close: () => server.close(),
  };
}

/** The admin's view of the management API, each call asserting the status it expects. */
export class EdgeAdmin {
  constructor(
    readonly controller: ControllerFixture,
    readonly token: string,
  ) {}

  get headers(): Record<string, string> {
    return { 'zt-session': this.token };
  }

  request(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<HttpResponse> {
    return this.controller.http.request(method, `${this.controller.managementApi}${path}`, { headers: this.headers, ...(body === undefined ? {} : { body }) });
  }

  async create(path: string, body: unknown): Promise<string> {
    const response = await this.request('POST', path, body);
    assert.equal(response.status, 201, `POST ${path}: ${response.text}`);
    return response.json.data.id as string;
  }

  async detail(path: string): Promise<any> {
    const response = await this.request('GET', path);
    assert.equal(response.status, 200, `GET ${path}: ${response.text}`);
    return response.json.data;
  }

  async ok(method: 'PUT' | 'PATCH' | 'DELETE' | 'POST', path: string, body?: unknown): Promise<void> {
    const response = await this.request(method, path, body);
    assert.equal(response.status, 200, `${method} ${path}: ${response.text}`);
  }

  createSigner(body: Record<string, unknown>): Promise<string> {
    return this.create('/external-jwt-signers', body);
  }

  createPolicy(name: string, changes: PolicyChanges = {}): Promise<string> {
    return this.create('/auth-policies', authPolicyBody(name, changes));
  }

  /** An identity; with `password`, also a updb authenticator whose username is the name. */
  async createIdentity(name: string, options: { externalId?: string; authPolicyId?: string; password?: string; isAdmin?: boolean } = {}): Promise<string> {
    const id = await this.create('/identities', {
      name,
      type: 'User',
      isAdmin: options.isAdmin ?? false,
      ...(options.externalId === undefined ? {} : { externalId: options.externalId }),
      ...(options.authPolicyId === undefined ? {} : { authPolicyId: options.authPolicyId }),
    });
    if (options.password !== undefined) await this.create('/authenticators', { method: 'updb', identityId: id, username: name, password: options.password });
    return id;
  }

  /** Every live API session (the admin's own included). */
  async sessionCount(): Promise<number> {
    const response = await this.request('GET', '/api-sessions?limit=500');
    assert.equal(response.status, 200, response.text);
    return response.json.meta.pagination.totalCount as number;
  }

  /** `[id, issuer]` of every enabled signer, as the controller has them now. */
  async enabledSigners(): Promise<Array<[string, string]>> {
    const response = await this.request('GET', '/external-jwt-signers?limit=500');
    assert.equal(response.status, 200, response.text);
    return (response.json.data as Array<{ id: string; issuer: string; enabled: boolean }>).filter((signer) => signer.enabled).map((signer) => [signer.id, signer.issuer]);
  }
}

export interface PolicyChanges {
  extJwt?: { allowed: boolean; allowedSigners: string[] };
  updbAllowed?: boolean;
  requireExtJwtSigner?: string | null;
}

/** The full auth-policy body (every required field), open like the default policy unless changed. */
export function authPolicyBody(name: string, changes: PolicyChanges = {}) {
  return {
    name,
    tags: {},
    primary: {
      cert: { allowed: true, allowExpiredCerts: false },
      updb: {
        allowed: changes.updbAllowed ?? true,
        minPasswordLength: 5,
        requireSpecialChar: false,
        requireNumberChar: false,
        requireMixedCase: false,
        maxAttempts: 0,
        lockoutDurationMinutes: 0,
      },
      extJwt: changes.extJwt ?? { allowed: true, allowedSigners: [] },
    },
    secondary: { requireTotp: false, requireExtJwtSigner: changes.requireExtJwtSigner ?? null },
  };
}

export interface Challenge {
  readonly scheme: string;
  /** The parameters in the order sent. */
  readonly names: readonly string[];
  readonly params: Readonly<Record<string, string>>;
}

/**
 * Parses one challenge strictly: `<Scheme> k="v" k="v" ...` with single spaces between parameters and no commas
 * outside quoted values, so a comma-separated or malformed header fails the test.
 */
export function parseChallenge(header: string | string[] | undefined): Challenge {
  assert.equal(typeof header, 'string', `expected one WWW-Authenticate header, got ${JSON.stringify(header)}`);
  const text = header as string;
  const match = /^([A-Za-z][A-Za-z0-9-]*)((?: [a-z_]+="[^"]*")+)$/.exec(text);
  assert.ok(match, `malformed challenge: ${text}`);
  const names: string[] = [];
  const params: Record<string, string> = {};
  for (const [, name, value] of match[2]!.matchAll(/ ([a-z_]+)="([^"]*)"/g)) {
    names.push(name!);
    params[name!] = value!;
  }
  return { scheme: match[1]!, names, params };
}

export const errorDescriptions = { missing: 'no matching token was provided', invalid: 'token is invalid', expired: 'token expired' } as const;
export type ChallengeError = keyof typeof errorDescriptions;

/** Asserts an ext-jwt challenge: realm, error, description, and the signers as `id`/`issuer` lists joined by `|`. */
export function assertExtJwtChallenge(
  header: string | string[] | undefined,
  realm: 'openziti-primary-ext-jwt' | 'openziti-secondary-ext-jwt',
  error: ChallengeError,
  signers: ReadonlyArray<readonly [string, string]>,
): void {
  const challenge = parseChallenge(header);
  assert.equal(challenge.scheme, 'Bearer');
  assert.deepEqual(challenge.names, ['realm', 'error', 'error_description', 'id', 'issuer']);
  assert.equal(challenge.params.realm, realm);
  assert.equal(challenge.params.error, error);
  assert.equal(challenge.params.error_description, errorDescriptions[error]);
  const ids = challenge.params.id!.split('|');
  const issuers = challenge.params.issuer!.split('|');
  assert.equal(ids.length, issuers.length, `ids and issuers pair up: ${header}`);
  const sent = ids.map((id, index) => `${id} ${issuers[index]}`).sort();
  assert.deepEqual(sent, signers.map(([id, issuer]) => `${id} ${issuer}`).sort());
}

export interface LogRecord {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A position in the controller log: records written after it can be awaited. */
export class LogCursor {
  private offset: number;

  constructor(private readonly controller: ControllerFixture) {
    this.offset = Buffer.byteLength(controller.readLog());
  }

  /** Waits (bounded) for a record written since the cursor that matches, and moves the cursor to the end. */
  async next(matches: (record: LogRecord) => boolean, timeoutMs = 3_000): Promise<LogRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const unread = Buffer.from(this.controller.readLog()).subarray(this.offset).toString('utf8');
      const text = unread.slice(0, unread.lastIndexOf('\n') + 1); // whole lines only: the writer may be mid-line
      const records = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as LogRecord);
      const found = records.find(matches);
      if (found) {
        this.offset += Buffer.byteLength(text);
        return found;
      }
      if (Date.now() > deadline) assert.fail(`no matching log record within ${timeoutMs} ms; records since the cursor:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/**
 * A request whose headers may repeat (an array sends one header line per value), which HttpsClient cannot send:
 * Node's server keeps only the first `authorization` line in `req.headers`, so repeats need their own test.
 */
export function requestWithRepeatedHeaders(caPem: string, method: string, url: string, headers: Record<string, string | string[]>): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, ca: caPem, agent: false, headers: { accept: 'application/json', 'content-length': '0', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${method} ${url}`)));
    req.end();
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
