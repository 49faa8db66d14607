// Authentication policies: which primary methods an identity may use (with password rules and lockout), and which
// secondary factors it owes. The `default` policy always exists; it can be changed but not deleted.
import type { Clock } from '../../common/time/clock.ts';
import type { EntityBody } from '../model/commands.ts';
import type { AuthPolicy, ExternalJwtSigner, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { defaultAuthPolicy } from './default-auth-policy.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export type AuthPolicyInput = EntityBody<AuthPolicy>;

export class AuthPolicyService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  list(): AuthPolicy[] {
    const stored = this.store.table<AuthPolicy>(tables.authPolicies).all();
    return stored.some((policy) => policy.id === defaultAuthPolicy.id) ? stored : [defaultAuthPolicy, ...stored];
  }

  find(id: string): AuthPolicy | undefined {
    return this.store.table<AuthPolicy>(tables.authPolicies).get(id) ?? (id === defaultAuthPolicy.id ? defaultAuthPolicy : undefined);
  }

  get(id: string): AuthPolicy {
    const policy = this.find(id);
    if (!policy) throw EdgeError.notFound('auth policy', id);
    return policy;
  }

  /** The policy that governs an identity; a dangling reference falls back to nothing being allowed. */
  forIdentity(identity: Identity): AuthPolicy {
    return this.find(identity.authPolicyId) ?? lockedPolicy(identity.authPolicyId);
  }

  async create(input: AuthPolicyInput): Promise<{ id: string }> {
    const at = this.now();
    const policy: AuthPolicy = { ...input, id: newEntityId(), createdAt: at, updatedAt: at };
    this.check(policy);
    const written = await this.writer.write<{ id: string }>({ type: 'authPolicy.create', policy });
    return { id: written.value.id };
  }

  async update(id: string, input: AuthPolicyInput): Promise<void> {
    const current = this.get(id);
    this.check({ ...current, ...input });
    await this.writer.write({ type: 'authPolicy.update', id, at: this.now(), policy: input });
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    if (id === defaultAuthPolicy.id) {
      throw new EdgeError('ENTITY_CAN_NOT_BE_DELETED', { code: 'ENTITY_CAN_NOT_BE_DELETED', message: 'the default auth policy can not be deleted' });
    }
    const user = this.store.table<Identity>(tables.identities).findMany('authPolicyId', id)[0];
    if (user) throw new EdgeError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field: 'authPolicyId', reason: `the auth policy is used by identity ${user.id}`, value: id });
    await this.writer.write({ type: 'authPolicy.delete', id });
  }

  private check(policy: AuthPolicy): void {
    const taken = this.list().find((other) => other.name === policy.name && other.id !== policy.id);
    if (taken) throw EdgeError.validation('name', `duplicate value '${policy.name}' in unique index on authPolicies store`, policy.name);
    const signers = this.store.table<ExternalJwtSigner>(tables.externalJwtSigners);
    for (const signerId of policy.primary.extJwt.allowedSigners) {
      if (!signers.get(signerId)) throw EdgeError.validation('primary.extJwt.allowedSigners', `external jwt signer with id ${signerId} not found`, signerId);
    }
    const secondary = policy.secondary.requireExtJwtSigner;
    if (secondary !== null && !signers.get(secondary)) throw EdgeError.validation('secondary.requireExtJwtSigner', `external jwt signer with id ${secondary} not found`, secondary);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}

/** What a missing policy means: no method is allowed, so nobody gets in through a broken reference. */
function lockedPolicy(id: string): AuthPolicy {
  const closed = defaultAuthPolicy.primary;
  return {
    ...defaultAuthPolicy,
    id,
    name: id,
    primary: { cert: { ...closed.cert, allowed: false }, updb: { ...closed.updb, allowed: false }, extJwt: { allowed: false, allowedSigners: [] } },
  };
}
