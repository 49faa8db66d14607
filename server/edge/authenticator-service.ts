// Authenticators: passwords (updb) created for an identity, changed by an admin or, with the current password, by
// the identity itself, under the password rules of the identity's authentication policy; and client certificates
// (cert) an admin registers by PEM. Enrollment creates both kinds too (see enrollment-service.ts). A wrong current
// password is a guess like a wrong login: it counts toward the policy's lockout (password-failures.ts).
import type { Clock } from '../../common/time/clock.ts';
import type { PasswordFailures } from './login/password-failures.ts';
import type { PasswordHasher } from '../auth/password-hasher.ts';
import type { AuthenticatorChanges } from '../model/commands.ts';
import type { Authenticator, Identity, UpdbAuthenticator } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { fingerprintOfPem } from '../auth/cert/certificate-fingerprint.ts';
import type { AuthPolicyService } from './auth-policy-service.ts';
import { passwordRuleViolations } from './default-auth-policy.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export class AuthenticatorService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
    private readonly policies: AuthPolicyService,
    private readonly hasher: PasswordHasher,
    private readonly failures: PasswordFailures,
  ) {}

  list(): Authenticator[] {
    return this.store.table<Authenticator>(tables.authenticators).all();
  }

  forIdentity(identityId: string): Authenticator[] {
    return this.store.table<Authenticator>(tables.authenticators).findMany('identityId', identityId);
  }

  get(id: string): Authenticator {
    const authenticator = this.store.table<Authenticator>(tables.authenticators).get(id);
    if (!authenticator) throw EdgeError.notFound('authenticator', id);
    return authenticator;
  }

  findByUsername(username: string): Authenticator | undefined {
    return this.store.table<Authenticator>(tables.authenticators).findUnique('username', username);
  }

  async createUpdb(input: { identityId: string; username: string; password: string; tags?: Record<string, unknown> | null }): Promise<{ id: string }> {
    const identity = this.store.table<Identity>(tables.identities).get(input.identityId);
    if (!identity) throw EdgeError.validation('identityId', `identity with id ${input.identityId} not found`, input.identityId);
    if (this.forIdentity(identity.id).some((existing) => existing.method === 'updb')) {
      throw EdgeError.validation('method', 'identity already has an authenticator of method updb', 'updb');
    }
    this.checkUsernameFree(input.username);
    this.checkPasswordRules(input.password, identity);
    const at = this.now();
    const authenticator: Authenticator = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: input.tags ?? {},
      method: 'updb',
      identityId: identity.id,
      username: input.username,
      password: await this.hasher.hash(input.password),
    };
    const written = await this.writer.write<{ id: string }>({ type: 'authenticator.create', authenticator });
    return { id: written.value.id };
  }

  /** Registers a client certificate (PEM) as the identity's cert authenticator. */
  async createCert(input: { identityId: string; certPem: string; tags?: Record<string, unknown> | null }): Promise<{ id: string }> {
    const identity = this.store.table<Identity>(tables.identities).get(input.identityId);
    if (!identity) throw EdgeError.validation('identityId', `identity with id ${input.identityId} not found`, input.identityId);
    if (this.forIdentity(identity.id).some((existing) => existing.method === 'cert')) {
      throw EdgeError.validation('method', 'identity already has an authenticator of method cert', 'cert');
    }
    let fingerprint: string;
    try {
      fingerprint = fingerprintOfPem(input.certPem);
    } catch (error) {
      throw EdgeError.validation('certPem', `certPem is not a PEM certificate: ${(error as Error).message}`);
    }
    if (this.store.table<Authenticator>(tables.authenticators).findUnique('fingerprint', fingerprint)) {
      throw EdgeError.validation('certPem', 'this certificate is already registered to an authenticator', fingerprint);
    }
    const at = this.now();
    const authenticator: Authenticator = {
      id: newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: input.tags ?? {},
      method: 'cert',
      identityId: identity.id,
      fingerprint,
      certPem: input.certPem.trim() + '\n',
      isIssuedByNetwork: false,
      caId: null,
    };
    const written = await this.writer.write<{ id: string }>({ type: 'authenticator.create', authenticator });
    return { id: written.value.id };
  }

  /**
   * Changes username and/or password; `currentPassword`, when required, must match first. `signal` aborts when the
   * request is abandoned, dropping a hash still waiting in the queue.
   */
  async update(
    id: string,
    input: { username?: string; password?: string; tags?: Record<string, unknown> | null; currentPassword?: string },
    options: { requireCurrentPassword: boolean; signal?: AbortSignal },
  ): Promise<void> {
    const current = this.get(id);
    if (current.method !== 'updb') {
      throw new EdgeError('CAN_NOT_UPDATE_AUTHENTICATOR', { field: 'method', reason: 'only updb authenticators have a username and password', value: current.method });
    }
    if (options.requireCurrentPassword) await this.checkCurrentPassword(current, input.currentPassword, options.signal);
    const changes: { -readonly [K in keyof AuthenticatorChanges]: AuthenticatorChanges[K] } = {};
    if (input.username !== undefined && input.username !== current.username) {
      this.checkUsernameFree(input.username);
      changes.username = input.username;
    }
    if (input.password !== undefined) {
      this.checkPasswordRules(input.password, this.store.table<Identity>(tables.identities).get(current.identityId));
      changes.password = await this.hasher.hash(input.password, options.signal);
    }
    if (input.tags !== undefined) changes.tags = input.tags ?? {};
    await this.writer.write({ type: 'authenticator.update', id, at: this.now(), changes });
  }

  async delete(id: string): Promise<void> {
    const authenticator = this.get(id);
    const identity = this.store.table<Identity>(tables.identities).get(authenticator.identityId);
    if (identity?.isDefaultAdmin && this.forIdentity(identity.id).length === 1) {
      // Deleting it would lock the default admin out with no way back in.
      throw new EdgeError('ENTITY_CAN_NOT_BE_DELETED', { code: 'ENTITY_CAN_NOT_BE_DELETED', message: "the default admin's only authenticator can not be deleted" });
    }
    await this.writer.write({ type: 'authenticator.delete', id });
  }

  /** A wrong current password is refused like a wrong login (a refusal the login throttle counts) and counted toward the lockout. */
  private async checkCurrentPassword(current: UpdbAuthenticator, currentPassword: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    const matched = currentPassword !== undefined && (await this.hasher.verify(currentPassword, current.password, signal));
    // Judged on every earlier wrong guess, as a login is (password-login.ts).
    await this.failures.settled(current.id);
    const identity = this.store.table<Identity>(tables.identities).get(current.identityId);
    if (matched && identity) {
      if (current.failedAttempts) await this.writer.write({ type: 'authenticator.loginSucceeded', id: current.id });
      return;
    }
    if (identity) this.failures.record(current, identity, this.policies.forIdentity(identity).primary.updb, 'password change');
    throw EdgeError.validation('currentPassword', 'the current password is incorrect').withRefusal({
      reason: 'wrong current password',
      ...(identity ? { identityId: identity.id } : {}),
      authenticatorId: current.id,
    });
  }

  private checkUsernameFree(username: string): void {
    if (this.findByUsername(username)) {
      throw EdgeError.validation('username', `duplicate value '${username}' in unique index on authenticators store`, username);
    }
  }

  /** The rules of the identity's policy; the default policy's for an identity that no longer exists. */
  checkPasswordRules(password: string, identity: Identity | undefined): void {
    const rules = (identity ? this.policies.forIdentity(identity) : this.policies.get('default')).primary.updb;
    const problems = passwordRuleViolations(password, rules);
    if (problems.length > 0) throw EdgeError.validation('password', `password ${problems.join(', ')}`);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
