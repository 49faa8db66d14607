// Management-API helpers for tests of services, service policies and MFA posture checks: create what a scenario
// needs in one call each, asserting every step succeeded, so a test reads as the scenario it proves.
import assert from 'node:assert/strict';
import type { ControllerFixture } from './controller-fixture.ts';

export interface PolicySpec {
  readonly name: string;
  readonly type: 'Dial' | 'Bind';
  readonly semantic?: 'AllOf' | 'AnyOf';
  readonly identityRoles?: string[];
  readonly serviceRoles?: string[];
  readonly postureCheckRoles?: string[];
}

export class OverlaySetup {
  private constructor(
    private readonly controller: ControllerFixture,
    private readonly admin: { 'zt-session': string },
  ) {}

  static async create(controller: ControllerFixture): Promise<OverlaySetup> {
    return new OverlaySetup(controller, { 'zt-session': await controller.adminToken() });
  }

  get adminHeaders(): { 'zt-session': string } {
    return this.admin;
  }

  /** A non-admin identity with a password authenticator (username = name). */
  async createUser(name: string, password: string, extra: { roleAttributes?: string[]; authPolicyId?: string } = {}): Promise<string> {
    const id = await this.post('/identities', { name, type: 'User', isAdmin: false, ...extra });
    await this.post('/authenticators', { method: 'updb', identityId: id, username: name, password });
    return id;
  }

  async createService(name: string, roleAttributes: string[] = []): Promise<string> {
    return this.post('/services', { name, encryptionRequired: true, roleAttributes });
  }

  async createPolicy(spec: PolicySpec): Promise<string> {
    return this.post('/service-policies', { semantic: 'AnyOf', identityRoles: [], serviceRoles: [], postureCheckRoles: [], ...spec });
  }

  async createMfaCheck(name: string, options: { roleAttributes?: string[]; timeoutSeconds?: number } = {}): Promise<string> {
    return this.post('/posture-checks', { typeId: 'MFA', name, roleAttributes: options.roleAttributes ?? [], timeoutSeconds: options.timeoutSeconds ?? -1 });
  }

  /**
   * A service only identities with `#<identityRole>` may dial, behind one MFA posture check: the "MFA enforcement
   * through an MFA posture check" setup.
   */
  async mfaGuardedService(name: string, identityRole: string, timeoutSeconds = -1): Promise<{ serviceId: string; policyId: string; checkId: string }> {
    const serviceId = await this.createService(name);
    const checkId = await this.createMfaCheck(`${name}-mfa`, { roleAttributes: [`${name}-mfa`], timeoutSeconds });
    const policyId = await this.createPolicy({ name: `${name}-dial`, type: 'Dial', identityRoles: [`#${identityRole}`], serviceRoles: [`@${serviceId}`], postureCheckRoles: [`#${name}-mfa`] });
    return { serviceId, policyId, checkId };
  }

  private async post(path: string, body: unknown): Promise<string> {
    const response = await this.controller.http.post(`${this.controller.managementApi}${path}`, { headers: this.admin, body });
    assert.equal(response.status, 201, `POST ${path}: ${response.text}`);
    return response.json.data.id as string;
  }
}

/** The client's view of a service: GET /services/{id} with the given zt-session token. */
export async function clientService(controller: ControllerFixture, token: string, serviceId: string) {
  return controller.http.get(`${controller.clientApi}/services/${serviceId}`, { headers: { 'zt-session': token } });
}

/** POST /sessions on the Client API. */
export async function openSession(controller: ControllerFixture, token: string, serviceId: string, type?: 'Dial' | 'Bind') {
  return controller.http.post(`${controller.clientApi}/sessions`, { headers: { 'zt-session': token }, body: { serviceId, ...(type ? { type } : {}) } });
}
