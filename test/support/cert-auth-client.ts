// What the certificate-authentication tests do again and again against one controller: log in with `curl --cert`,
// check a refusal (the client's 401 and the controller log's reason), register and verify third-party CAs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ControllerFixture } from './controller-fixture.ts';
import { curl, type CurlResponse } from './curl-client.ts';
import type { HttpResponse } from './https-client.ts';
import { LogWatch, type LogRecord } from './log-watch.ts';
import { OpensslWorkbench, type CertFiles } from './openssl-workbench.ts';

export interface ClientCredentials {
  readonly certFile: string;
  readonly keyFile: string;
}

export const errorMeta = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' };

/** The standard error envelope with this status and code. */
export function assertApiError(response: HttpResponse | CurlResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text.slice(0, 500));
  assert.equal(response.json?.error?.code, code, response.text.slice(0, 500));
  assert.equal(typeof response.json.error.message, 'string');
  assert.ok(response.json.error.requestId, 'the error carries a request id');
  assert.deepEqual(response.json.meta, errorMeta);
}

export class CertAuthClient {
  readonly workbench: OpensslWorkbench;
  readonly log: LogWatch;
  readonly caFile: string;
  private headers: Record<string, string> = {};

  private constructor(readonly controller: ControllerFixture) {
    this.workbench = new OpensslWorkbench(join(controller.root, 'client-certs'));
    this.caFile = this.workbench.write('controller-ca.pem', controller.caPem);
    this.log = new LogWatch(controller.logFile);
  }

  static async create(controller: ControllerFixture): Promise<CertAuthClient> {
    const client = new CertAuthClient(controller);
    client.headers = { 'zt-session': await controller.adminToken() };
    return client;
  }

  get admin(): Record<string, string> {
    return this.headers;
  }

  mgmt(path: string): string {
    return `${this.controller.managementApi}${path}`;
  }

  client(path: string): string {
    return `${this.controller.clientApi}${path}`;
  }

  /** POST /authenticate?method=cert with curl, presenting the certificate file (which may hold a chain). */
  certLogin(credentials: ClientCredentials | undefined, options: { api?: 'client' | 'management'; body?: string } = {}): Promise<CurlResponse> {
    const base = options.api === 'management' ? this.controller.managementApi : this.controller.clientApi;
    return curl(`${base}/authenticate?method=cert`, {
      caFile: this.caFile,
      ...(credentials ? { certFile: credentials.certFile, keyFile: credentials.keyFile } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
  }

  /** A successful cert login: 200, an API session for `identityId` (when given) and the zt-session header. */
  async expectLogin(credentials: ClientCredentials, identityId?: string, options: { api?: 'client' | 'management'; body?: string } = {}): Promise<any> {
    const response = await this.certLogin(credentials, options);
    assert.equal(response.status, 200, response.text.slice(0, 500));
    const session = response.json.data;
    assert.equal(response.headers['zt-session'], session.token);
    if (identityId !== undefined) {
      assert.equal(session.identityId, identityId);
      assert.equal(session.identity.id, identityId);
    }
    assert.deepEqual(session.authQueries, []);
    return session;
  }

  /** A refused cert login: 401 INVALID_AUTH in the standard envelope, and the log line saying why. */
  async expectRefused(credentials: ClientCredentials | undefined, reason: RegExp, options: { api?: 'client' | 'management' } = {}): Promise<LogRecord> {
    const mark = this.log.mark();
    const response = await this.certLogin(credentials, { ...options, body: '{}' });
    assertApiError(response, 401, 'INVALID_AUTH');
    assert.equal(response.headers['zt-session'], undefined, 'a refused login gets no session');
    const record = await this.log.waitFor(mark, (line) => line.msg === 'certificate authentication failed');
    assert.match(String(record.reason), reason);
    return record;
  }

  async identityByName(name: string): Promise<any | undefined> {
    const response = await this.controller.http.get(this.mgmt(`/identities?filter=${encodeURIComponent(`name = "${name}"`)}`), { headers: this.headers });
    assert.equal(response.status, 200, response.text);
    assert.ok(response.json.data.length <= 1);
    return response.json.data[0];
  }

  async identity(id: string): Promise<any> {
    const response = await this.controller.http.get(this.mgmt(`/identities/${id}`), { headers: this.headers });
    assert.equal(response.status, 200, response.text);
    return response.json.data;
  }

  async count(collection: string): Promise<number> {
    const response = await this.controller.http.get(this.mgmt(`/${collection}?limit=1`), { headers: this.headers });
    assert.equal(response.status, 200, response.text);
    return response.json.meta.pagination.totalCount as number;
  }

  /** POST /cas; returns the new CA's detail. */
  async createCa(body: Record<string, unknown>): Promise<any> {
    const created = await this.controller.http.post(this.mgmt('/cas'), { headers: this.headers, body });
    assert.equal(created.status, 201, created.text);
    const detail = await this.controller.http.get(this.mgmt(`/cas/${created.json.data.id}`), { headers: this.headers });
    assert.equal(detail.status, 200, detail.text);
    return detail.json.data;
  }

  /** POST /cas/<id>/verify with a PEM body, as text/plain. */
  verifyCa(caId: string, pem: string): Promise<HttpResponse> {
    return this.controller.http.post(this.mgmt(`/cas/${caId}/verify`), { headers: { ...this.headers, 'content-type': 'text/plain' }, rawBody: pem });
  }

  /** Proves possession: a certificate signed by the CA whose CN is the verification token. */
  async proveCa(ca: { id: string; verificationToken: string }, caFiles: CertFiles, fileName: string): Promise<void> {
    const proof = await this.workbench.issue(fileName, caFiles, { commonName: ca.verificationToken });
    const response = await this.verifyCa(ca.id, proof.certPem);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json, { data: {}, meta: {} });
  }
}
